"""Adapters for OpenAI-compatible servers (OpenAI, Ollama, vLLM, llama.cpp server) over plain HTTP."""
