"""Google Gemini adapters (google-genai SDK)."""
