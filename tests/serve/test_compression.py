"""Compressed answers: brotli or gzip as the client accepts, from streams compressed once per
snapshot answer, with ETags per encoding and If-None-Match compared weakly (RFC 9110 §13.1.2).

Every stream is decoded here by the formats' own libraries (zlib's gzip and Google's brotli),
not by the code that wrote it.
"""

import gzip
import zlib

import brotli
import msgspec
import pytest

from serve.answers import matches, tagged
from serve.compression import BROTLI, FAST, GZIP, MIN_BYTES, Stream, accepted_encoding

DECODE = {GZIP: gzip.decompress, BROTLI: brotli.decompress}


@pytest.mark.parametrize("encoding", [GZIP, BROTLI])
@pytest.mark.parametrize("tail", [b"0}", b"86400}", b"}" * 65_535])
def test_a_stream_finished_with_any_tail_decodes_to_head_and_tail(encoding, tail):
    head = b'{"data":' + b"[1.25,2.5,\"SONNET-4\"]," * 4000 + b'"oracle_timestamp":"x","cache_age_seconds":'
    stream = Stream.of(encoding, head)
    assert len(stream.head) < len(head) / 10  # it did compress
    whole = stream.finish(tail)
    assert DECODE[encoding](whole) == head + tail
    # A decoder fed byte by byte (as from a slow connection) reads the same.
    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding == GZIP else brotli.Decompressor()
    step = decoder.decompress if encoding == GZIP else decoder.process
    assert b"".join(step(whole[i:i + 1]) for i in range(len(whole))) == head + tail


def test_a_tail_too_long_for_one_block_is_refused():
    with pytest.raises(ValueError, match="65536 bytes"):
        Stream.of(GZIP, b"x" * 2000).finish(b"y" * 65_536)


@pytest.mark.parametrize("encoding", [GZIP, BROTLI])
def test_a_stream_at_the_fast_setting_decodes_too(encoding):
    head = b'{"data":{"models":[' + b'{"ticker":"O3","spot_cost":0.0534},' * 500 + b'{}]},"cache_age_seconds":'
    assert DECODE[encoding](Stream.of(encoding, head, FAST).finish(b"7}")) == head + b"7}"


@pytest.mark.parametrize(("header", "chosen"), [
    ("", None), ("identity", None), ("gzip", GZIP), ("br", BROTLI), ("gzip, deflate, br, zstd", BROTLI),
    ("br;q=0.5, gzip", GZIP), ("gzip;q=0.2, br;q=0.8", BROTLI), ("*", BROTLI), ("gzip;q=0, *", BROTLI),
    ("br;q=0, gzip;q=0", None), ("*;q=0", None), ("deflate", None), ("GZIP;Q=1", GZIP), ("br;q=abc, gzip", GZIP),
])
def test_the_encoding_chosen_for_an_accept_encoding_header(header, chosen):
    assert accepted_encoding(header) == chosen


@pytest.mark.parametrize(("if_none_match", "hit"), [
    ('"abc"', True), ('W/"abc"', True), ('"abc-gzip"', True), ('W/"abc-br"', True), ("*", True),
    ('"zzz", "abc"', True), ('"zzz",W/"abc-gzip"', True), ('"zzz"', False), ('"abc-zstd"', False), ("", False),
    ('"ab"', False),
])
def test_if_none_match_is_compared_weakly_across_encodings(if_none_match, hit):
    assert matches(if_none_match, '"abc"') is hit


def test_each_encoding_has_its_own_tag():
    assert [tagged('"abc"', e) for e in (None, GZIP, BROTLI)] == ['"abc"', '"abc-gzip"', '"abc-br"']


def _raw(client, method: str, path: str, encoding: str, **kwargs):
    """The response and its body exactly as sent (the test client would otherwise decode it)."""
    with client.stream(method, path, headers={"Accept-Encoding": encoding, **kwargs.pop("headers", {})},
                       **kwargs) as response:
        return response, b"".join(response.iter_raw())


def _without_age(body: bytes) -> dict:
    decoded = msgspec.json.decode(body)
    assert isinstance(decoded.pop("cache_age_seconds"), int)
    return decoded


@pytest.mark.parametrize("encoding", [GZIP, BROTLI])
def test_a_snapshot_answer_is_sent_compressed_when_asked(client, encoding):
    plain, plain_body = _raw(client, "GET", "/v1/spots", "identity")
    assert "content-encoding" not in plain.headers and plain.headers["vary"] == "Accept-Encoding"
    for attempt in ("handler or memo", "memo"):  # the second is certainly a repeat sent from memory
        response, body = _raw(client, "GET", "/v1/spots", encoding)
        assert response.status_code == 200, attempt
        assert response.headers["content-encoding"] == encoding
        assert response.headers["vary"] == "Accept-Encoding"
        assert response.headers["etag"] == tagged(plain.headers["etag"], encoding)
        assert int(response.headers["content-length"]) == len(body) < len(plain_body) / 5
        assert _without_age(DECODE[encoding](body)) == _without_age(plain_body)


@pytest.mark.parametrize("encoding", [GZIP, BROTLI])
def test_a_cached_copy_of_any_encoding_gets_a_304(client, encoding):
    plain, _ = _raw(client, "GET", "/v1/forwards/SONNET-4", "identity")
    tag = plain.headers["etag"]
    for sent in (tag, f"W/{tag}", tagged(tag, GZIP), tagged(tag, BROTLI), "*", f'"other", {tag}'):
        response, body = _raw(client, "GET", "/v1/forwards/SONNET-4", encoding, headers={"If-None-Match": sent})
        assert (response.status_code, body) == (304, b""), sent
        assert response.headers["etag"] == tagged(tag, encoding)
    response, _ = _raw(client, "GET", "/v1/forwards/SONNET-4", encoding, headers={"If-None-Match": '"other"'})
    assert response.status_code == 200


def test_a_short_answer_is_sent_as_it_is(client):
    response, body = _raw(client, "GET", "/v1/history/O3?from=2025-06-01&to=2025-06-01", "br, gzip")
    assert len(body) < MIN_BYTES + 100
    assert "content-encoding" not in response.headers and "vary" not in response.headers
    assert msgspec.json.decode(body)["data"]["ticker"] == "O3"


@pytest.mark.parametrize("encoding", [GZIP, BROTLI])
def test_a_computed_answer_is_compressed_when_asked(client, encoding):
    request = {"n_in": 30000, "n_out": 800, "eta": 0.6}
    plain, plain_body = _raw(client, "POST", "/v1/compare", "identity", json=request)
    response, body = _raw(client, "POST", "/v1/compare", encoding, json=request)
    assert "content-encoding" not in plain.headers
    assert response.headers["content-encoding"] == encoding and response.headers["vary"] == "Accept-Encoding"
    assert len(body) < len(plain_body) / 3  # a comparison of the small universe: about a quarter
    assert _without_age(DECODE[encoding](body)) == _without_age(plain_body)
    small, small_body = _raw(client, "POST", "/v1/price", encoding, json={"model": "SONNET-4", "n_in": 10, "n_out": 5})
    assert "content-encoding" not in small.headers and msgspec.json.decode(small_body)["data"]["spot_cost"] > 0
