"""End-to-end tests of the standalone index player (tools/index_player.html), opened from file://.

Index files are written here by a small independent writer that follows the v1 format field by field,
so the player is checked against the specification, not against tokenguide's own serializer.
"""

from __future__ import annotations

import gzip
import json
import struct
from array import array
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (pip install playwright pytest-playwright)")
from playwright.sync_api import Page, expect  # noqa: E402

PLAYER = Path(__file__).resolve().parents[2] / "tools" / "index_player.html"


# --------------------------------------------------------------------------------------------------------
# Independent writer for the v1 binary format
# --------------------------------------------------------------------------------------------------------
def index_bytes(
    vocab_size: int,
    eos: int,
    initial: int,
    finals: list[int],
    transitions: dict[int, dict[int, int]],
    index_type: int = 1,
) -> bytes:
    """Uncompressed v1 layout: header, final states, index_type, then states with (token, next) pairs."""
    out = bytearray()
    out += struct.pack("<IIII", vocab_size, eos, initial, len(finals))
    for f in finals:
        out += struct.pack("<I", f)
    out += struct.pack("<B", index_type)
    out += struct.pack("<I", len(transitions))
    for state, trans in transitions.items():
        out += struct.pack("<II", state, len(trans))
        for token, nxt in trans.items():
            out += struct.pack("<II", token, nxt)
    return bytes(out)


def gz(data: bytes) -> bytes:
    """gzip, one member, mtime 0 (deterministic)."""
    return gzip.compress(data, mtime=0)


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# A small index over a 7-token vocabulary (eos = 6):
#   state 0 --a(0)--> 1 --b(1)--> 2 (final, only its eos loop)
#   state 1 --c(2)--> 0 (state 0 as a target), state 0 --d(3)--> 3 --e(4)--> 2, state 3 --f(5)--> 3
SMALL_VOCAB = 7
SMALL_EOS = 6
SMALL = {
    0: {0: 1, 3: 3},
    1: {1: 2, 2: 0},
    3: {4: 2, 5: 3},
    2: {SMALL_EOS: 2},
}
# GPT-2 style byte-level vocab.json: Ġ is a space, Ċ a newline, 'Ã©' is 'é' (bytes c3 a9), 'Ã' alone is byte c3.
SMALL_VOCAB_JSON = {"a": 0, "Ġb": 1, "Ċ": 2, "Ã©": 3, "Ã": 4, "x": 5, "<|endoftext|>": 6}


@pytest.fixture
def small_index(tmp_path: Path) -> Path:
    return write(tmp_path, "small.outlines", gz(index_bytes(SMALL_VOCAB, SMALL_EOS, 0, [2], SMALL)))


@pytest.fixture
def small_vocab(tmp_path: Path) -> Path:
    return write(tmp_path, "vocab.json", json.dumps(SMALL_VOCAB_JSON).encode())


@pytest.fixture(autouse=True)
def no_script_errors(page: Page):
    """Fail a test whose page throws an uncaught exception or logs a console error."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    yield errors
    assert errors == [], errors


def open_player(page: Page) -> None:
    page.goto(PLAYER.as_uri())
    expect(page.locator("html")).to_have_attribute("data-player-ready", "1")


def load(page: Page, index: Path, vocab: Path | None = None, expect_state: str = "ready") -> None:
    """Pick the files and wait until the player has finished with the index ('ready' or 'error')."""
    if vocab is not None:
        page.get_by_test_id("vocab-file").set_input_files(str(vocab))
    page.get_by_test_id("index-file").set_input_files(str(index))
    expect(page.locator("body")).to_have_attribute("data-state", expect_state, timeout=60_000)


def cards(page: Page):
    return page.locator('[data-testid="transitions"] [data-testid="transition"]')


def card(page: Page, token: int):
    return page.locator(f'[data-testid="transition"][data-token-id="{token}"]')


def shown_transitions(page: Page) -> list[tuple[int, int]]:
    return [
        (int(c.get_attribute("data-token-id")), int(c.get_attribute("data-next-state")))
        for c in cards(page).all()
    ]


def expect_error(page: Page, *fragments: str) -> None:
    err = page.get_by_test_id("error")
    expect(err).to_be_visible()
    for f in fragments:
        expect(err).to_contain_text(f)


# --------------------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------------------
def test_open_small_index_shows_info_and_transitions(page: Page, small_index: Path) -> None:
    open_player(page)
    expect(page.get_by_test_id("error")).to_be_hidden()
    load(page, small_index)
    info = page.get_by_test_id("info")
    expect(info).to_have_attribute("data-vocab-size", str(SMALL_VOCAB))
    expect(info).to_have_attribute("data-eos", str(SMALL_EOS))
    expect(info).to_have_attribute("data-initial-state", "0")
    expect(info).to_have_attribute("data-num-states", "4")
    expect(info).to_have_attribute("data-num-transitions", "7")
    expect(info).to_have_attribute("data-index-type", "1")
    expect(page.get_by_test_id("current-state")).to_have_text("0")
    expect(page.get_by_test_id("final-badge")).to_be_hidden()
    expect(cards(page)).to_have_count(2)
    assert shown_transitions(page) == [(0, 1), (3, 3)]
    expect(page.get_by_test_id("error")).to_be_hidden()


def test_step_by_click_and_token_id_back_and_reset(page: Page, small_index: Path, small_vocab: Path) -> None:
    open_player(page)
    load(page, small_index, small_vocab)
    current = page.get_by_test_id("current-state")
    card(page, 0).click()                       # a -> state 1
    expect(current).to_have_text("1")
    assert shown_transitions(page) == [(1, 2), (2, 0)]
    token_input = page.get_by_test_id("token-input")
    token_input.fill("1")                       # Ġb -> state 2 (final)
    token_input.press("Enter")
    expect(current).to_have_text("2")
    expect(page.get_by_test_id("final-badge")).to_be_visible()
    expect(page.get_by_test_id("generated-text")).to_have_text("a b")
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "0,1")
    assert shown_transitions(page) == [(SMALL_EOS, 2)]   # a final state keeps only its eos loop
    card(page, SMALL_EOS).click()               # eos loops on the final state
    expect(current).to_have_text("2")
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", f"0,1,{SMALL_EOS}")
    page.get_by_test_id("back-button").click()
    page.get_by_test_id("back-button").click()
    expect(current).to_have_text("1")
    expect(page.get_by_test_id("final-badge")).to_be_hidden()
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "0")
    page.get_by_test_id("reset-button").click()
    expect(current).to_have_text("0")
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "")
    expect(page.get_by_test_id("generated-text")).to_have_text("")


def test_state_zero_is_a_valid_next_state(page: Page, small_index: Path) -> None:
    open_player(page)
    load(page, small_index)
    card(page, 0).click()
    expect(page.get_by_test_id("current-state")).to_have_text("1")
    expect(card(page, 2)).to_have_attribute("data-next-state", "0")
    card(page, 2).click()                       # 1 --c--> 0
    expect(page.get_by_test_id("current-state")).to_have_text("0")
    expect(page.get_by_test_id("path")).to_have_attribute("data-states", "0,1,0")
    assert shown_transitions(page) == [(0, 1), (3, 3)]
    expect(page.get_by_test_id("error")).to_be_hidden()


def test_invalid_transitions_give_a_message(page: Page, small_index: Path) -> None:
    open_player(page)
    load(page, small_index)
    token_input = page.get_by_test_id("token-input")
    token_input.fill("1")                       # token 1 exists, but not in state 0
    token_input.press("Enter")
    expect_error(page, "not allowed in state 0")
    expect(page.get_by_test_id("current-state")).to_have_text("0")
    token_input.fill("99")
    token_input.press("Enter")
    expect_error(page, "out of range")
    token_input.fill("abc")
    token_input.press("Enter")
    expect_error(page, "not a token id")
    token_input.fill("3")
    token_input.press("Enter")
    expect(page.get_by_test_id("current-state")).to_have_text("3")
    expect(page.get_by_test_id("error")).to_be_hidden()


def test_token_text_is_decoded_exactly(page: Page, small_index: Path, small_vocab: Path) -> None:
    open_player(page)
    load(page, small_index, small_vocab)
    expect(card(page, 3).locator('[data-role="text"]')).to_have_text("é")
    card(page, 3).click()                       # Ã© -> é, state 3
    expect(card(page, 4).locator('[data-role="text"]')).to_have_text("\\xc3")   # lone lead byte: escape
    card(page, 4).click()                       # state 2
    expect(page.get_by_test_id("generated-text")).to_have_text("é\\xc3")
    page.get_by_test_id("reset-button").click()
    card(page, 0).click()
    expect(card(page, 2).locator('[data-role="text"]')).to_have_text("\\n")     # Ċ is a newline, shown visibly
    expect(card(page, 1).locator('[data-role="text"]')).to_have_text(" b")      # Ġ is a space
    card(page, 2).click()
    expect(page.get_by_test_id("generated-text")).to_have_text("a\n")


def test_sentencepiece_tokenizer_json(page: Page, tmp_path: Path) -> None:
    pieces = ["<unk>", "<s>", "</s>", "<0x0A>", "<0xC3>", "<0xA9>", "▁hello", "▁", "world"]
    tokenizer = {
        "model": {"type": "BPE", "vocab": {p: i for i, p in enumerate(pieces)}, "byte_fallback": True},
        "added_tokens": [
            {"id": 0, "content": "<unk>", "special": True},
            {"id": 1, "content": "<s>", "special": True},
            {"id": 2, "content": "</s>", "special": True},
        ],
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0},
        ]},
    }
    trans = {0: {6: 1}, 1: {4: 2, 3: 3}, 2: {5: 3}, 3: {2: 3}}
    index = write(tmp_path, "sp.outlines", gz(index_bytes(len(pieces), 2, 0, [3], trans)))
    vocab = write(tmp_path, "tokenizer.json", json.dumps(tokenizer).encode())
    open_player(page)
    load(page, index, vocab)
    expect(card(page, 6).locator('[data-role="text"]')).to_have_text(" hello")
    card(page, 6).click()
    expect(card(page, 3).locator('[data-role="text"]')).to_have_text("\\n")
    expect(card(page, 4).locator('[data-role="text"]')).to_have_text("\\xc3")
    card(page, 4).click()
    card(page, 5).click()
    expect(page.get_by_test_id("generated-text")).to_have_text(" helloé")
    expect(page.get_by_test_id("final-badge")).to_be_visible()
    expect(card(page, 2).locator('[data-role="text"]')).to_have_text("</s>")


def test_byte_level_tokenizer_json_with_added_tokens(page: Page, tmp_path: Path) -> None:
    tokenizer = {
        "model": {"type": "BPE", "vocab": {"Ġhi": 0, "Ã©": 1, "<|eot|>": 2}},
        "added_tokens": [
            {"id": 2, "content": "<|eot|>", "special": True},
            {"id": 3, "content": "café ok", "special": False},   # literal text, not byte-level mapped
        ],
        "decoder": {"type": "ByteLevel"},
    }
    index = write(tmp_path, "bl.outlines", gz(index_bytes(4, 2, 0, [1], {0: {0: 1, 3: 1}, 1: {1: 1, 2: 1}})))
    vocab = write(tmp_path, "tokenizer.json", json.dumps(tokenizer).encode())
    open_player(page)
    load(page, index, vocab)
    expect(card(page, 0).locator('[data-role="text"]')).to_have_text(" hi")
    expect(card(page, 3).locator('[data-role="text"]')).to_have_text("café ok")
    card(page, 3).click()
    card(page, 1).click()
    expect(page.get_by_test_id("generated-text")).to_have_text("café oké")
    expect(card(page, 2).locator('[data-role="text"]')).to_have_text("<|eot|>")


def test_filter_by_text_and_id(page: Page, tmp_path: Path) -> None:
    words = ["apple", "banana", "cherry", "grape", "melon", "peach", "plum", "<eos>"]
    vocab = write(tmp_path, "vocab.json", json.dumps({w: i for i, w in enumerate(words)}).encode())
    trans = {0: {i: 1 for i in range(7)}, 1: {7: 1}}
    index = write(tmp_path, "fruit.outlines", gz(index_bytes(8, 7, 0, [1], trans)))
    open_player(page)
    load(page, index, vocab)
    expect(cards(page)).to_have_count(7)
    flt = page.get_by_test_id("filter-input")
    flt.fill("an")
    expect(cards(page)).to_have_count(1)
    expect(cards(page).first).to_have_attribute("data-token-id", "1")
    flt.fill("P")                               # case-insensitive: apple, grape, peach, plum
    expect(cards(page)).to_have_count(4)
    assert sorted(t for t, _ in shown_transitions(page)) == [0, 3, 5, 6]
    flt.fill("4")                               # by id
    expect(cards(page)).to_have_count(1)
    expect(cards(page).first).to_have_attribute("data-token-id", "4")
    flt.fill("zzz")
    expect(cards(page)).to_have_count(0)
    flt.fill("")
    expect(cards(page)).to_have_count(7)


def test_group_by_next_state_and_keyboard(page: Page, tmp_path: Path) -> None:
    trans = {0: {0: 2, 1: 1, 2: 2, 3: 1}, 1: {4: 1}, 2: {5: 1}}
    index = write(tmp_path, "g.outlines", gz(index_bytes(6, 4, 0, [1], trans)))
    open_player(page)
    load(page, index)
    assert [t for t, _ in shown_transitions(page)] == [0, 1, 2, 3]
    page.get_by_test_id("group-toggle").check()
    expect(cards(page).first).to_have_attribute("data-next-state", "1")
    assert shown_transitions(page) == [(1, 1), (3, 1), (0, 2), (2, 2)]
    page.get_by_test_id("transitions").focus()
    page.keyboard.press("ArrowRight")           # focus the first card, then the second
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")                # grouped order: second card is token 3 -> 1
    expect(page.get_by_test_id("current-state")).to_have_text("1")
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "3")
    page.keyboard.press("Backspace")
    expect(page.get_by_test_id("current-state")).to_have_text("0")


def test_path_in_url_hash_is_restored(page: Page, small_index: Path) -> None:
    page.goto(PLAYER.as_uri() + "#path=0,2,3")
    load(page, small_index)
    expect(page.get_by_test_id("current-state")).to_have_text("3")
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "0,2,3")
    card(page, 4).click()
    expect(page.get_by_test_id("current-state")).to_have_text("2")
    assert page.evaluate("location.hash") == "#path=0,2,3,4"


def test_random_walk_ends_in_a_final_state(page: Page, small_index: Path) -> None:
    open_player(page)
    load(page, small_index)
    for _ in range(5):
        page.get_by_test_id("reset-button").click() if page.get_by_test_id("reset-button").is_enabled() else None
        page.get_by_test_id("random-walk").click()
        expect(page.get_by_test_id("final-badge")).to_be_visible()
        assert page.get_by_test_id("current-state").text_content() == "2"


def test_follow_text(page: Page, small_index: Path, small_vocab: Path) -> None:
    open_player(page)
    load(page, small_index, small_vocab)
    spell = page.get_by_test_id("spell-input")
    spell.fill("a\na b")                        # a, Ċ (back to 0), a, Ġb
    spell.press("Enter")
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "0,2,0,1")
    expect(page.get_by_test_id("final-badge")).to_be_visible()
    page.get_by_test_id("reset-button").click()
    spell.fill("b")
    spell.press("Enter")
    expect_error(page, "No token path")
    expect(page.get_by_test_id("current-state")).to_have_text("0")


def test_state_graph_for_small_index(page: Page, small_index: Path) -> None:
    open_player(page)
    load(page, small_index)
    graph = page.get_by_test_id("graph")
    expect(graph).to_be_visible()
    expect(graph.locator("g.node")).to_have_count(4)
    graph.locator('g.node[data-state="2"]').click()   # shortest path to state 2
    expect(page.get_by_test_id("current-state")).to_have_text("2")


def test_xss_vocabulary_is_shown_as_text(page: Page, tmp_path: Path) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    evil = "<img src=x onerror=alert(1)>"
    evil2 = "<script>alert(2)</script>"
    # a valid byte-level vocab.json (a space is "Ġ" there; a literal space would make tokenguide refuse the file)
    vocab = write(tmp_path, "vocab.json", json.dumps({evil.replace(" ", "Ġ"): 0, evil2: 1, "Ġ<b>bold</b>": 2, "<eos>": 3}).encode())
    index = write(tmp_path, "xss.outlines", gz(index_bytes(4, 3, 0, [1], {0: {0: 1, 1: 1, 2: 1}, 1: {3: 1}})))
    open_player(page)
    load(page, index, vocab)
    expect(card(page, 0).locator('[data-role="text"]')).to_have_text(evil)
    expect(card(page, 1).locator('[data-role="text"]')).to_have_text(evil2)
    expect(card(page, 2).locator('[data-role="text"]')).to_have_text(" <b>bold</b>")
    card(page, 0).click()
    expect(page.get_by_test_id("generated-text")).to_have_text(evil)
    assert page.locator("main img, main script, main b").count() == 0
    # A positive control instead of a fixed sleep: an image that fails (a data: URL that is no
    # image; the page's CSP allows only data: and blob: images, so an injected src="x" is blocked
    # and reported on the console, which the teardown checks). Once its error event has run, and
    # a task after it, the error of an image injected earlier has run its onerror too, and an
    # alert blocks the page until the handler above dismissed (recorded) it.
    assert page.evaluate("""() => new Promise((resolve) => {
        const probe = new Image();
        probe.onload = () => resolve('loaded');
        probe.onerror = () => setTimeout(() => resolve('error'), 0);
        probe.src = 'data:image/png;base64,AAAA';
    })""") == "error"
    assert dialogs == []


@pytest.mark.parametrize(
    ("name", "make", "fragment"),
    [
        ("not_gzip", lambda raw: b"this is not a gzip file at all", "not a gzip file"),
        ("empty", lambda raw: b"", "empty"),
        ("truncated_gzip", lambda raw: gz(raw)[: len(gz(raw)) // 2], "corrupt or truncated"),
        ("corrupt_gzip", lambda raw: gz(raw)[:12] + bytes(b ^ 0x5A for b in gz(raw)[12:]), "corrupt or truncated"),
        ("truncated_content", lambda raw: gz(raw[:-5]), "truncated"),
        ("short_header", lambda raw: gz(raw[:10]), "header"),
        ("trailing_bytes", lambda raw: gz(raw + b"\0\0\0\0"), "unexpected bytes"),
        ("unknown_index_type", lambda raw: gz(index_bytes(SMALL_VOCAB, SMALL_EOS, 0, [2], SMALL, index_type=7)),
         "unknown index_type 7"),
        ("token_beyond_vocab", lambda raw: gz(index_bytes(5, 4, 0, [1], {0: {9: 1}, 1: {4: 1}})), "token id 9"),
        ("duplicate_state", lambda raw: gz(_duplicate_state()), "appears twice"),
        ("huge_final_count", lambda raw: gz(struct.pack("<IIII", 7, 6, 0, 0xFFFFFFF0) + b"\0" * 8), "num_final_states"),
        ("huge_state_count", lambda raw: gz(raw[:21] + struct.pack("<I", 10**9) + raw[25:]), "num_states"),
        ("huge_transition_count", lambda raw: gz(raw[:29] + struct.pack("<I", 10**9) + raw[33:]), "declares"),
        ("eos_beyond_vocab", lambda raw: gz(index_bytes(5, 5, 0, [0], {0: {1: 0}})), "eos_token_id"),
        ("eos_to_other_state", lambda raw: gz(index_bytes(5, 4, 0, [1], {0: {4: 1}, 1: {4: 1}})), "eos may only loop"),
        ("eos_on_non_final", lambda raw: gz(index_bytes(5, 4, 0, [1], {0: {4: 0, 1: 1}, 1: {4: 1}})),
         "not a final state"),
        ("final_without_eos_loop", lambda raw: gz(index_bytes(5, 4, 0, [1], {0: {1: 1}, 1: {2: 1}})),
         "no eos self-loop"),
        ("initial_nowhere", lambda raw: gz(index_bytes(5, 4, 7, [1], {0: {1: 1}, 1: {4: 1}})), "appears nowhere"),
        ("gzip_trailing_garbage", lambda raw: gz(raw) + b"garbage!", "corrupt or truncated"),
        ("two_gzip_members", lambda raw: gz(raw) + gz(raw), "corrupt or truncated"),
        ("gzip_crc_mismatch", lambda raw: gz(raw)[:-8] + bytes([gz(raw)[-8] ^ 1]) + gz(raw)[-7:], "corrupt or truncated"),
    ],
)
def test_bad_files_show_a_message(page: Page, tmp_path: Path, name: str, make, fragment: str) -> None:
    raw = index_bytes(SMALL_VOCAB, SMALL_EOS, 0, [2], SMALL)
    path = write(tmp_path, f"{name}.outlines", make(raw))
    open_player(page)
    load(page, path, expect_state="error")
    expect_error(page, f"{name}.outlines", fragment)
    expect(cards(page)).to_have_count(0)
    # the page stays usable: a good file opens afterwards
    good = write(tmp_path, "good.outlines", gz(raw))
    load(page, good)
    expect(page.get_by_test_id("error")).to_be_hidden()
    expect(cards(page)).to_have_count(2)


def _duplicate_state() -> bytes:
    """State 0 stored twice (the header says two states)."""
    out = struct.pack("<IIII", 5, 4, 0, 1) + struct.pack("<I", 1) + b"\x01" + struct.pack("<I", 2)
    out += struct.pack("<IIII", 0, 1, 1, 1)
    out += struct.pack("<IIII", 0, 1, 4, 1)
    return out


def test_bad_vocabulary_shows_a_message(page: Page, small_index: Path, tmp_path: Path) -> None:
    open_player(page)
    load(page, small_index)
    page.get_by_test_id("vocab-file").set_input_files(str(write(tmp_path, "vocab.json", b"{not json")))
    expect_error(page, "vocab.json", "not valid JSON")
    expect(cards(page)).to_have_count(2)        # the index stays usable


def test_unsorted_transitions_are_sorted(page: Page, tmp_path: Path) -> None:
    """Files written from hash maps list transitions in any order; the player shows them by token id."""
    trans = {0: {5: 1, 2: 1, 9: 0, 0: 1}, 1: {10: 1}}
    index = write(tmp_path, "u.outlines", gz(index_bytes(11, 10, 0, [1], trans)))
    open_player(page)
    load(page, index)
    assert shown_transitions(page) == [(0, 1), (2, 1), (5, 1), (9, 0)]


# --------------------------------------------------------------------------------------------------------
# Large index: one state with 100,000 transitions, 2,000,000 transitions in all
# --------------------------------------------------------------------------------------------------------
BIG_STATES = 20
BIG_PER_STATE = 100_000
BIG_VOCAB = BIG_PER_STATE + 1          # eos = 100,000


@pytest.fixture(scope="session")
def big_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 states x 100,000 transitions (state s -> s+1, the last state final with an eos loop as well)."""
    out = bytearray(struct.pack("<IIII", BIG_VOCAB, BIG_PER_STATE, 0, 1))
    out += struct.pack("<I", BIG_STATES - 1) + b"\x01" + struct.pack("<I", BIG_STATES)
    tokens = array("I", range(BIG_PER_STATE))
    for s in range(BIG_STATES):
        final = s == BIG_STATES - 1
        pairs = array("I", bytes(8 * BIG_PER_STATE))
        pairs[0::2] = tokens
        pairs[1::2] = array("I", [(s + 1) % BIG_STATES]) * BIG_PER_STATE
        if final:                       # replace the last pair by the eos loop to keep 100,000 per state
            pairs[-2] = BIG_PER_STATE
            pairs[-1] = s
        if struct.pack("=I", 1) != struct.pack("<I", 1):
            pairs.byteswap()
        out += struct.pack("<II", s, BIG_PER_STATE) + pairs.tobytes()
    path = tmp_path_factory.mktemp("big") / "big.outlines"
    path.write_bytes(gzip.compress(bytes(out), compresslevel=6, mtime=0))
    return path


def test_big_index_opens_with_a_bounded_dom(page: Page, big_index: Path) -> None:
    open_player(page)
    load(page, big_index)
    info = page.get_by_test_id("info")
    expect(info).to_have_attribute("data-num-transitions", str(BIG_STATES * BIG_PER_STATE))
    expect(info).to_have_attribute("data-num-states", str(BIG_STATES))
    expect(page.get_by_test_id("transition-count")).to_have_attribute("data-total", str(BIG_PER_STATE))
    n = cards(page).count()
    assert 0 < n <= 500, n
    # scroll to the end: the last token is rendered, the DOM stays bounded
    page.get_by_test_id("transitions").evaluate("el => { el.scrollTop = el.scrollHeight; }")
    expect(card(page, BIG_PER_STATE - 1)).to_be_visible()
    assert cards(page).count() <= 500
    card(page, BIG_PER_STATE - 1).click()
    expect(page.get_by_test_id("current-state")).to_have_text("1")
    flt = page.get_by_test_id("filter-input")
    flt.fill("99999")
    expect(cards(page)).to_have_count(1)
    expect(page.get_by_test_id("graph").locator("g.node")).to_have_count(BIG_STATES)


# --------------------------------------------------------------------------------------------------------
# Handover from the builder (no download) and the offline guard itself
# --------------------------------------------------------------------------------------------------------
OPENER_HTML = """<!doctype html><meta charset="utf-8"><title>fake builder</title>
<script>
const b64 = "%(b64)s";
const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
let w = null;
window.addEventListener('message', (e) => {
  if (e.source === w && e.data && e.data.type === 'tokenguide-player-ready') {
    w.postMessage({type: 'tokenguide-index', bytes, vocab: %(vocab)s, vocabName: 'vocab.json', name: 'handed.outlines'},
                  '*', [bytes]);
  }
});
function openPlayer() { w = window.open('%(player)s'); }
</script><button id="open" onclick="openPlayer()">open</button>"""


@pytest.mark.parametrize("served", [False, True], ids=["file", "http"])
def test_handover_from_builder_by_postmessage(page: Page, tmp_path: Path, static_server, served: bool) -> None:
    import base64
    import shutil

    raw = gz(index_bytes(SMALL_VOCAB, SMALL_EOS, 0, [2], SMALL))
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(PLAYER, site / "index_player.html")
    (site / "builder.html").write_text(OPENER_HTML % {
        "b64": base64.b64encode(raw).decode(),
        "vocab": json.dumps(json.dumps(SMALL_VOCAB_JSON)),
        "player": "index_player.html",
    }, encoding="utf-8")
    url = static_server(site) + "builder.html" if served else (site / "builder.html").as_uri()
    page.goto(url)
    with page.expect_popup() as popup_info:
        page.click("#open")
    player = popup_info.value
    expect(player.locator("body")).to_have_attribute("data-state", "ready")
    expect(player.get_by_test_id("info")).to_have_attribute("data-num-transitions", "7")
    expect(player.get_by_test_id("info")).to_contain_text("handed.outlines")
    card(player, 0).click()
    card(player, 1).click()
    expect(player.get_by_test_id("generated-text")).to_have_text("a b")


def test_handover_by_session_storage(page: Page, tmp_path: Path, static_server) -> None:
    import base64
    import shutil

    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(PLAYER, site / "index_player.html")
    (site / "start.html").write_text("<!doctype html><title>start</title>", encoding="utf-8")
    base = static_server(site)
    page.goto(base + "start.html")
    payload = {"name": "stored.outlines", "vocab": json.dumps(SMALL_VOCAB_JSON), "vocabName": "vocab.json",
               "bytesBase64": base64.b64encode(gz(index_bytes(SMALL_VOCAB, SMALL_EOS, 0, [2], SMALL))).decode()}
    page.evaluate("p => sessionStorage.setItem('tokenguide-index', JSON.stringify(p))", payload)
    page.goto(base + "index_player.html")
    expect(page.locator("body")).to_have_attribute("data-state", "ready")
    expect(page.get_by_test_id("info")).to_contain_text("stored.outlines")
    expect(card(page, 1)).to_have_count(0)
    assert page.evaluate("sessionStorage.getItem('tokenguide-index')") is None


def test_offline_guard_blocks_and_records_external_requests(
    page: Page, offline_guard: list[str], no_script_errors: list[str]
) -> None:
    page.set_content("<p>guard</p>")
    result = page.evaluate(
        "() => fetch('http://192.0.2.1/probe').then(() => 'reached', (e) => 'blocked: ' + e.message)"
    )
    assert result.startswith("blocked"), result
    no_script_errors.clear()                      # the blocked fetch logs a console error; expected here
    assert any("192.0.2.1" in u for u in offline_guard), offline_guard
    offline_guard.clear()                         # expected here; any other test with a request fails


# --------------------------------------------------------------------------------------------------------
# Indexes built by tokenguide on the real sample vocabularies
# --------------------------------------------------------------------------------------------------------
def _expected_card_text(data: bytes) -> str | None:
    """How the player must show a token whose bytes are valid, printable UTF-8 (None for the other tokens)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if text and all(c.isprintable() or c == " " for c in text) else None


def _check_walk(page: Page, index, text: str) -> None:
    """Follow `text` in the player; the states shown must be those of the Python index for the same tokens."""
    spell = page.get_by_test_id("spell-input")
    spell.fill(text)
    spell.press("Enter")
    expect(page.get_by_test_id("generated-text")).to_have_text(text)
    expect(page.get_by_test_id("final-badge")).to_be_visible()
    tokens = [int(t) for t in page.get_by_test_id("path").get_attribute("data-tokens").split(",")]
    states = [index.initial_state]
    for tok in tokens:
        states.append(index.get_next_state(states[-1], tok))
    assert None not in states
    assert page.get_by_test_id("path").get_attribute("data-states") == ",".join(map(str, states))
    assert index.is_final_state(states[-1])


def _check_initial_cards(page: Page, index, vocabulary) -> None:
    allowed = index.get_allowed_tokens(index.initial_state)
    expect(page.get_by_test_id("transition-count")).to_have_attribute("data-total", str(len(allowed)))
    checked = 0
    for c in cards(page).all():
        tok = int(c.get_attribute("data-token-id"))
        assert int(c.get_attribute("data-next-state")) == index.get_next_state(index.initial_state, tok)
        expected = _expected_card_text(vocabulary.id_to_bytes(tok))
        if expected is not None:
            assert c.locator('[data-role="text"]').text_content() == expected, tok
            checked += 1
    assert checked > 0


def test_gpt2_index_built_by_tokenguide(page: Page, tmp_path: Path, gpt2_vocab_path: Path, gpt2_vocabulary) -> None:
    from tokenguide.index import Index

    index = Index(r"[a-z]{1,3}@(gmail|example)\.com", gpt2_vocabulary)
    path = tmp_path / "email.outlines"
    index.save(path)
    open_player(page)
    load(page, path, gpt2_vocab_path)
    info = page.get_by_test_id("info")
    expect(info).to_have_attribute("data-num-transitions", str(index.num_transitions))
    expect(info).to_have_attribute("data-eos", str(gpt2_vocabulary.eos_token_id))
    _check_initial_cards(page, index, gpt2_vocabulary)
    _check_walk(page, index, "ab@example.com")
    eos = gpt2_vocabulary.eos_token_id
    expect(card(page, eos).locator('[data-role="text"]')).to_have_text("<|endoftext|>")


def test_llama2_index_built_by_tokenguide(
    page: Page, tmp_path: Path, llama2_tokenizer_path: Path, llama2_vocabulary
) -> None:
    from tokenguide.index import Index

    index = Index(r"[a-zé]{1,4} ?[0-9]\n?", llama2_vocabulary)
    path = tmp_path / "llama.outlines"
    index.save(path)
    open_player(page)
    load(page, path, llama2_tokenizer_path)
    _check_initial_cards(page, index, llama2_vocabulary)
    _check_walk(page, index, "été 5")
    page.get_by_test_id("reset-button").click()
    page.get_by_test_id("filter-input").fill("\\x")                 # the byte-fallback tokens, shown as escapes
    c3 = 3 + 0xC3                                                  # <0xC3> (ids 3..258 are <0x00>..<0xFF>)
    assert llama2_vocabulary.id_to_bytes(c3) == b"\xc3"
    expect(card(page, c3).locator('[data-role="text"]')).to_have_text("\\xc3")


def test_filter_field_markup(page: Page) -> None:
    """The filter box has its whole placeholder, a title and an accessible name (no attribute swallowed)."""
    open_player(page)
    box = page.get_by_test_id("filter-input")
    assert box.get_attribute("placeholder") == "filter: text, token id, or >next state"
    assert box.get_attribute("title") == "text (case-insensitive), a token id, or >N for transitions to state N"
    assert box.get_attribute("aria-label") == "filter transitions"
    expect(page.get_by_role("searchbox", name="filter transitions")).to_have_count(1)


def test_path_in_url_is_bound_to_its_index(page: Page, small_index: Path, tmp_path: Path) -> None:
    """The path left in the URL by one index is never replayed on another one (issue: date then email)."""
    other = write(tmp_path, "other.outlines", gz(index_bytes(SMALL_VOCAB, SMALL_EOS, 0, [2], {**SMALL, 3: {4: 2}})))
    open_player(page)
    load(page, small_index)
    for token in (0, 2, 3):
        card(page, token).click()
    expect(page.get_by_test_id("current-state")).to_have_text("3")
    bound_url = page.url
    fingerprint = page.get_attribute("body", "data-fingerprint")
    assert f"?index={fingerprint}#path=0,2,3" in bound_url
    # the same tokens exist in the other index: the stale path must still not be applied to it
    load(page, other)
    expect(page.get_by_test_id("current-state")).to_have_text("0")
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "")
    expect(page.get_by_test_id("status")).to_contain_text("belongs to another index")
    assert "#path=" not in page.url
    # a shared link reopens the path on its own index, and only there
    page.goto(bound_url)
    expect(page.locator("html")).to_have_attribute("data-player-ready", "1")
    load(page, other)
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "")
    page.goto(bound_url)
    expect(page.locator("html")).to_have_attribute("data-player-ready", "1")
    load(page, small_index)
    expect(page.get_by_test_id("current-state")).to_have_text("3")
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "0,2,3")


def test_bad_file_keeps_the_loaded_index(page: Page, small_index: Path, small_vocab: Path, tmp_path: Path) -> None:
    open_player(page)
    load(page, small_index, small_vocab)
    card(page, 0).click()
    expect(page.get_by_test_id("current-state")).to_have_text("1")
    load(page, write(tmp_path, "broken.outlines", b"\x1f\x8b\x08\x00garbage"), expect_state="error")
    expect_error(page, "broken.outlines", "Still showing small.outlines")
    expect(page.get_by_test_id("current-state")).to_have_text("1")
    expect(page.get_by_test_id("path")).to_have_attribute("data-tokens", "0")
    assert sorted(t for t, _ in shown_transitions(page)) == [1, 2]
    expect(page.get_by_test_id("info").locator('[data-field="file"]')).to_have_text("small.outlines")
    # a bad vocabulary keeps the vocabulary in use too
    page.get_by_test_id("vocab-file").set_input_files(str(write(tmp_path, "vocab2.json", b"\x89PNG\r\n\x1a\n\0\0")))
    expect_error(page, "vocab2.json", "not UTF-8", "Still using vocab.json")
    expect(card(page, 1).locator('[data-role="text"]')).to_have_text(" b")
    # and the page goes on: stepping still works
    card(page, 1).click()
    expect(page.get_by_test_id("final-badge")).to_be_visible()


LANGUAGE = [w + s + "!" for w in ("cat", "dog") for s in ("", "s")]  # the regex (cat|dog)s?! spelled out


def _next_bytes(prefix: str) -> list[int]:
    """Oracle: the bytes that may follow `prefix` in a text of LANGUAGE."""
    return sorted({ord(w[len(prefix)]) for w in LANGUAGE if w.startswith(prefix) and len(w) > len(prefix)})


def test_why_not_this_token_in_the_player(page: Page, tmp_path: Path, gpt2_vocab_path: Path, gpt2_vocabulary) -> None:
    from tokenguide.index import Index

    index = Index(r"(cat|dog)s?!", gpt2_vocabulary)
    path = tmp_path / "pets.outlines"
    index.save(path)
    open_player(page)
    load(page, path, gpt2_vocab_path)
    box = page.get_by_test_id("explain")

    def explain(token: str) -> None:
        page.get_by_test_id("explain-input").fill(str(gpt2_vocabulary.get(token)[0]))
        page.get_by_test_id("explain-input").press("Enter")
        expect(box).to_have_attribute("data-token", str(gpt2_vocabulary.get(token)[0]))

    explain("cat")
    expect(box).to_have_attribute("data-allowed", "true")
    expect(box).to_contain_text("allowed: it leads to state")
    explain("cow")  # 'c' is fine, 'o' is where it dies: after 'c' only 'a' may come
    expect(box).to_have_attribute("data-allowed", "false")
    expect(box).to_have_attribute("data-reach", "1")
    assert _next_bytes("c") == [ord("a")]
    expect(box).to_contain_text("Its bytes get 1 of 3 in")
    expect(box).to_contain_text("0x6f 'o'")
    expect(box).to_contain_text("There the index accepts: a")
    expect(box.locator(".dead")).to_have_text("ow")
    explain("dot")
    expect(box).to_have_attribute("data-reach", "2")
    expect(box).to_contain_text("There the index accepts: g")
    assert _next_bytes("do") == [ord("g")]
    # after "dog": an 's' or the '!'
    page.get_by_test_id("spell-input").fill("dog")
    page.get_by_test_id("spell-button").click()
    expect(page.get_by_test_id("generated-text")).to_have_text("dog")
    explain(" dog")
    expect(box).to_have_attribute("data-reach", "0")
    expect(box).to_contain_text("There the index accepts: ! s")
    assert _next_bytes("dog") == [ord("!"), ord("s")]
    # disallowed tokens are searchable: every token whose text holds "dog", each with its verdict
    page.get_by_test_id("explain-input").fill("!")
    page.get_by_test_id("explain-button").click()
    matches = page.get_by_test_id("explain-match")
    expect(matches.first).to_be_visible()
    verdicts = {int(m.get_attribute("data-token-id")): m.get_attribute("data-allowed") for m in matches.all()}
    state = int(page.get_by_test_id("current-state").text_content())
    allowed_now = set(index.get_allowed_tokens(state))
    assert len(verdicts) > 5 and all((v == "true") == (t in allowed_now) for t, v in verdicts.items())
    assert verdicts[gpt2_vocabulary.get("!")[0]] == "true"
    assert any(v == "false" for v in verdicts.values())


def test_mask_time_and_forced_tokens(page: Page, small_index: Path) -> None:
    """Per-token cost: the time of each state's token mask and the running mean; a state with one
    transition (state 2's eos loop) is marked forced, and so is the path step taken from it."""
    open_player(page)
    load(page, small_index)
    cost = page.get_by_test_id("mask-time")
    expect(cost).to_have_attribute("data-masks", "1")
    expect(cost).to_contain_text("last mask")
    expect(cost).to_contain_text("mean")
    expect(page.get_by_test_id("forced-badge")).to_be_hidden()   # state 0: two transitions
    card(page, 0).click()                                         # -> state 1 (two transitions)
    expect(cost).to_have_attribute("data-masks", "2")
    expect(page.get_by_test_id("forced-badge")).to_be_hidden()
    card(page, 1).click()                                         # -> state 2: only its eos loop
    expect(cost).to_have_attribute("data-masks", "3")
    expect(page.get_by_test_id("forced-badge")).to_be_visible()
    card(page, SMALL_EOS).click()
    expect(cost).to_have_attribute("data-masks", "4")
    forced = page.get_by_test_id("path").locator("li[data-forced=true]")
    expect(forced).to_have_count(1)                               # the eos step, taken from state 2
    expect(forced).to_contain_text(f"2 —[{SMALL_EOS}")
    last, mean = float(cost.get_attribute("data-last-ms")), float(cost.get_attribute("data-mean-ms"))
    assert last >= 0 and mean >= 0
    page.get_by_test_id("back-button").click()                    # a state seen again is timed again
    expect(cost).to_have_attribute("data-masks", "5")
