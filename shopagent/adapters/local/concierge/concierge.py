"""The offline concierge: a rule-based stand-in for a chat model. It is NOT an LLM.

It makes `shopagent demo` useful without any API key, for any catalog. Each customer
message is read (understanding.py) into filters, follow-up cues and the words that describe
the item, and planned against the conversation so far (planning.py): a short reply, or the
tool calls that answer it. The tool results then become an honest answer (answers.py).
Replies are in the shopper's language where it is English, German or French (languages.py: that
of their latest message that tells one), else in the store language.

What a later turn needs of an earlier one (the plan, the list shown) travels in the model
messages' `provider_state` (memory.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

from shopagent.adapters.local.concierge.answers import Answerer
from shopagent.adapters.local.concierge.facts import SentenceVectors
from shopagent.adapters.local.concierge.languages import shopper_language
from shopagent.adapters.local.concierge.memory import history_of, state_of
from shopagent.adapters.local.concierge.planning import Planner, VocabularySource
from shopagent.adapters.local.concierge.replies import ENGLISH, REPLIES, Replies
from shopagent.adapters.local.concierge.understanding import LanguageNames, Lexicon, Reading
from shopagent.application.ports import EmbeddingModel
from shopagent.domain.catalog import CatalogRules
from shopagent.domain.chat import ChatMessage, FunctionResponse, ModelReply, ToolSpec


class OfflineConcierge:
    """Implements the ChatModel port with rules instead of a language model."""

    model_id = "offline-concierge"

    def __init__(
        self,
        rules: CatalogRules,
        store_name: str,
        *,
        replies: Replies = ENGLISH,
        language: str = "en",
        names: Mapping[str, LanguageNames] | None = None,
        vocabulary: VocabularySource | None = None,
        embedder: EmbeddingModel | None = None,
        contact: str = "",
    ) -> None:
        known_names = dict(names or {})
        self._say_in = replies
        self._language = language
        self._lexicon = Lexicon(rules, known_names, language)
        # (the store's own templates in its language; the others' for shoppers writing in them)
        said_in = {**REPLIES, language: replies}
        self._planners = {
            lang: Planner(r, store_name, self._lexicon, vocabulary, contact, lang == language, language)
            for lang, r in said_in.items()
        }
        vectors: SentenceVectors = OrderedDict()  # (one cache of sentence embeddings for all of them)
        self._answerers = {
            lang: Answerer(
                r, store_name, rules, self._lexicon, language, known_names, embedder, contact, vectors, said_in=lang
            )
            for lang, r in said_in.items()
        }

    @property
    def replies(self) -> Replies:
        """The templates it answers with (those of the store language)."""
        return self._say_in

    async def aclose(self) -> None:
        """Nothing to release."""

    def read(self, text: str) -> Reading:
        """What a message says (filters, cues, the words describing the item)."""
        return self._lexicon.read(text)

    async def generate(
        self,
        system: str,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        temperature: float | None = None,
        *,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """The next reply. It is composed whole, so `on_text` gets its text once, in one piece."""
        last = messages[-1]
        responses = [p for p in last.parts if isinstance(p, FunctionResponse)]
        language = shopper_language([m.text for m in messages if m.role == "user"], self._language)
        if responses:
            plan = state_of(messages[-2]).get("plan", {}) if len(messages) > 1 else {}
            reply = await self._answerers[language].answer(responses, plan)
        else:
            planner = self._planners[language]
            reply = await planner.plan(last.text, history_of(messages[:-1]), frozenset(t.name for t in tools))
        if on_text is not None and reply.text:
            on_text(reply.text)
        return reply
