-- Conversations: one writer at a time through an atomic claim with a fencing token.
CREATE TABLE conversation (
    id uuid PRIMARY KEY,
    user_id text NOT NULL,
    title text NOT NULL DEFAULT '',
    model_id text NOT NULL,
    is_processing boolean NOT NULL DEFAULT false,
    processing_started_at timestamptz,
    claim_token uuid,
    max_context_window_reached boolean NOT NULL DEFAULT false,
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CHECK (is_processing = (claim_token IS NOT NULL))
);
CREATE INDEX conversation_by_user ON conversation (user_id, updated_at DESC, id DESC);
CREATE INDEX conversation_processing ON conversation (processing_started_at) WHERE is_processing;

CREATE TABLE conversation_message (
    conversation_id uuid NOT NULL REFERENCES conversation (id) ON DELETE CASCADE,
    sequence integer NOT NULL CHECK (sequence > 0),
    role text NOT NULL CHECK (role IN ('user', 'model')),
    parts jsonb NOT NULL,
    provider_state jsonb,
    input_tokens integer,
    output_tokens integer,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (conversation_id, sequence)
);
