"""Which model a listed id names, who makes it, and whether the listing is the maker's own.

The same model appears under many ids: dated and undated (`claude-sonnet-4-20250514`,
`claude-sonnet-4-0`), vendor-prefixed at hosts (`anthropic/claude-sonnet-4`,
`anthropic.claude-sonnet-4-20250514-v1:0`), with dots or dashes (`claude-3.5-sonnet`). Ids are
reduced to a normal form, and two ids of one maker with the same normal form are one model.
The maker comes from the vendor prefix where there is one, otherwise from a curated table of
brand patterns (`warehouse/seed/makers.csv`), so a host's listing of a model and the maker's
own listing meet on the same key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from pipelines.listings import canonical_provider

# Suffixes that name a snapshot or packaging of a model rather than another model.
_SNAPSHOT_SUFFIXES = [
    re.compile(r"-v\d+:\d+$"),  # Bedrock packaging: -v1:0
    re.compile(r"-\d{4}-\d{2}-\d{2}$"),  # -2024-08-06
    re.compile(r"-\d{8}$"),  # -20250514
    re.compile(r"-\d{6}$"),  # -251015
    re.compile(r"-(?:0[1-9]|1[0-2])-20\d{2}$"),  # -03-2025
    re.compile(r"-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$"),  # -06-17
    # Four digits only where they read as a month-day snapshot (-0709). A year-month suffix
    # (-2411, -2506) is not stripped: Mistral and Qwen use it for distinct models at their own prices.
    re.compile(r"-(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$"),
    re.compile(r"-00\d$"),  # -001 (Gemini revisions)
]
# A pointer names whichever model the provider currently serves under it, not a model.
POINTER = re.compile(r"-latest$")
_HOST_PREFIXES = [
    # Bedrock cross-region profiles: a short region token before `vendor.model` (us., eu., apac., ca., us-gov.)
    re.compile(r"^[a-z]{2,6}(?:-gov)?\.(?=[a-z0-9-]+\.[a-z])"),
    re.compile(r"^@cf/"),  # Cloudflare
    re.compile(r"^accounts/[^/]+/models/"),  # Fireworks
    re.compile(r"^models/"),  # Google's REST form
]
# Ids that are not text models sold by the token, whatever their price table says.
NOT_TEXT = re.compile(
    r"embed|rerank|moderation|tts|transcribe|whisper|speech|audio|voice|realtime|image|"
    r"dall-e|vision-preview|ocr|live|robotics|computer-use|search-api|nano-banana|veo|sora|imagen|"
    r"video|music|:"
)
FINE_TUNE = re.compile(r"^ft:|\.ft-")  # read on the raw id, whose dots the normal form rewrites


@dataclass(frozen=True)
class ModelKey:
    """One model: its maker and the id the maker's own catalogue uses for it."""

    maker: str
    model_id: str


# Names are normalised many times over (every pointer against every id of its maker, every
# anchor of a backtest, each listed id by every step that maps listings to models); a pure
# function of a string, each is worked out once.
NAME_MEMO = 1 << 18


@lru_cache(maxsize=NAME_MEMO)
def split_vendor(listed_id: str) -> tuple[str | None, str]:
    """(vendor named in the id, the id without vendor and host packaging)."""
    bare = listed_id.strip()
    for prefix in _HOST_PREFIXES:
        bare = prefix.sub("", bare)
    vendor = None
    if "/" in bare:
        vendor, bare = bare.rsplit("/", 1)
        vendor = vendor.split("/")[-1]
    elif re.match(r"^[a-z0-9-]+\.[a-z]", bare) and not re.match(r"^[a-z]+-?\d", bare):
        vendor, bare = bare.split(".", 1)  # Bedrock: anthropic.claude-...
    return (canonical_provider(vendor) if vendor else None), bare


@lru_cache(maxsize=NAME_MEMO)
def strip_snapshot(model_id: str) -> str:
    """Lower case, without snapshot suffixes (repeatedly: `-2024-08-06-v1:0`) or a trailing `-0` version."""
    form, changed = model_id.lower(), True
    while changed:
        changed = False
        for suffix in _SNAPSHOT_SUFFIXES:
            shorter = suffix.sub("", form)
            if shorter != form and shorter:
                form, changed = shorter, True
    return re.sub(r"(\d)-0$", r"\1", form)


@lru_cache(maxsize=NAME_MEMO)
def normal_form(model_id: str) -> str:
    """`strip_snapshot` with dots and underscores as dashes, so `claude-3.5-sonnet` meets `claude-3-5-sonnet`."""
    return strip_snapshot(model_id.replace(".", "-").replace("_", "-"))


def is_text_model(model_id: str) -> bool:
    return not (NOT_TEXT.search(normal_form(model_id)) or FINE_TUNE.search(model_id.lower()))


class MakerTable:
    """Brand patterns → maker, first match wins (from `makers.csv`)."""

    def __init__(self, rows: Iterable[tuple[str, str]]):
        self._rules = [(re.compile(pattern), maker) for pattern, maker in rows]
        self.makers = {maker for _, maker in self._rules}
        self._brands: dict[str, str | None] = {}  # the brand pattern's maker by id, found once

    def maker_of(self, listed_id: str, vendor: str | None = None) -> str | None:
        """The brand decides; a vendor prefix only where no brand pattern matches, because
        resellers prefix other makers' models with their own name (`perplexity/glm-5.3`)."""
        bare = listed_id.lower()
        if bare not in self._brands:
            self._brands[bare] = next((maker for pattern, maker in self._rules if pattern.search(bare)), None)
        branded = self._brands[bare]
        if branded is not None:
            return branded
        return vendor if vendor in self.makers else None


@lru_cache(maxsize=NAME_MEMO)
def is_pointer(model_id: str) -> bool:
    return bool(POINTER.search(model_id.strip().lower()))


class Resolver:
    """Maps (provider, listed id) to a ModelKey, learning each maker's ids from its own listings.

    What a source states about identity comes first: a curated alias (`claim`, from
    `model_aliases.csv`), then the source's own matching of an id to one of its models
    (`matcher`, genai-prices' match rules), then the exact id, then its normal form. A catalogue
    that lists two ids with one normal form as separate models (`mistral-large` and
    `mistral-large-2512`) is believed: with `distinct=True` the second id becomes a model of its
    own, reachable by its exact id. Pointer ids (`-latest`, and the curated `pointers`: ids
    without `-latest` that the maker repoints, `mistral-medium`) are never models: `pointer_of`
    names them, and `pipelines.pointers` decides per date which model they served.
    """

    def __init__(self, makers: MakerTable, matcher: Callable[[str, str], str | None] | None = None,
                 pointers: Iterable[tuple[str, str]] = ()):
        self.makers = makers
        self._matcher = matcher
        self._pointers = {(maker, pointer.lower()) for maker, pointer in pointers}
        self._exact: dict[tuple[str, str], ModelKey] = {}
        self._normal: dict[tuple[str, str], ModelKey] = {}
        self._offers: dict[tuple[str, str], ModelKey] = {}

    def is_pointer(self, maker: str | None, bare: str) -> bool:
        return is_pointer(bare) or (maker, bare.strip().lower()) in self._pointers

    def _maker_and_bare(self, listed_id: str) -> tuple[str | None, str]:
        vendor, bare = split_vendor(listed_id)
        return self.makers.maker_of(bare, vendor), bare

    def pointer_of(self, listed_id: str) -> tuple[str, str] | None:
        """(maker, pointer id) when the id is a pointer of a known maker."""
        maker, bare = self._maker_and_bare(listed_id)
        return (maker, bare.lower()) if maker and self.is_pointer(maker, bare) else None

    def source_match(self, maker: str, bare: str) -> ModelKey | None:
        """The model the source's own match rules give for an id, if that model is known here."""
        target = self._matcher(maker, bare) if self._matcher else None
        return self._exact.get((maker, target.lower())) if target else None

    def source_match_id(self, maker: str, bare: str) -> str | None:
        """`source_match` as the model's id (what `pipelines.pointers` compares)."""
        key = self.source_match(maker, bare)
        return key.model_id if key else None

    def key_of(self, provider: str, listed_id: str) -> tuple[ModelKey | None, bool]:
        """(model key or None, whether this provider is the model's maker)."""
        maker, bare = self._maker_and_bare(listed_id)
        own = maker == canonical_provider(provider)
        if own and (maker, listed_id.strip().lower()) in self._offers:
            return self._offers[(maker, listed_id.strip().lower())], True
        if maker is None or (self.is_pointer(maker, bare) and (maker, bare.lower()) not in self._exact):
            return None, False
        key = (self._exact.get((maker, bare.lower())) or self.source_match(maker, bare)
               or self._normal.get((maker, normal_form(bare))))
        return key, own

    def learn_offer(self, provider: str, listed_id: str) -> ModelKey | None:
        """Register the maker's own listing of `maker/x` beside its `x` as another product, a model
        under its full id: Perplexity's Agent API names its models `perplexity/…`, and its
        `perplexity/sonar` is priced apart from the Sonar API's `sonar`. Only the maker's own
        listings of the full id reach it; a host's `perplexity/sonar` resells `sonar`."""
        maker, bare = self._maker_and_bare(listed_id)
        if maker is None or maker != canonical_provider(provider) or not is_text_model(bare):
            return None
        full = listed_id.strip().lower()
        return self._offers.setdefault((maker, full), ModelKey(maker, full))

    def claim(self, maker: str, alias_id: str, key: ModelKey) -> None:
        """Register `alias_id` as another name of the model `key`, whatever its normal form says."""
        self._exact[(maker, alias_id.lower())] = key

    def learn(self, provider: str, listed_id: str, distinct: bool = False, product: bool = False) -> ModelKey | None:
        """Register a maker's own listing as a model; the first id seen for a normal form names it.

        An id the source's match rules give to a known model joins that model. A pointer id is a
        model only as a `product`: billed under that name at a price no model of its line has.
        """
        maker, bare = self._maker_and_bare(listed_id)
        if (maker is None or maker != canonical_provider(provider) or not is_text_model(bare)
                or (self.is_pointer(maker, bare) and not product)):
            return None
        if (maker, listed_id.strip().lower()) in self._offers:
            return self._offers[(maker, listed_id.strip().lower())]
        exact, normal = (maker, bare.lower()), (maker, normal_form(bare))
        if exact in self._exact:
            return self._exact[exact]
        matched = None if distinct else self.source_match(maker, bare)
        if matched is not None:
            key = matched
        elif normal in self._normal and not distinct:
            key = self._normal[normal]
        else:
            key = ModelKey(maker, bare)
            self._normal.setdefault(normal, key)
        self._exact[exact] = key
        return key
