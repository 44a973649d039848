from mcp_service.snippets import snippet

FILLER = " ".join(["filler"] * 40)  # 279 characters


def test_a_snippet_starts_at_the_sentence_whose_window_holds_most_query_words() -> None:
    text = f"Opening line here. {FILLER} delta epsilon zeta. Closing delta epsilon line."
    # the long sentence names all three words, but past the 200 characters its window shows
    got = snippet(text, "delta epsilon zeta")
    assert got == "…Closing delta epsilon line."


def test_a_snippet_of_a_short_text_is_the_text_and_a_long_one_is_cut_at_a_word() -> None:
    assert snippet("  One   short\ntext. ", "short") == "One short text."
    got = snippet(f"Delta first. {FILLER}", "delta")
    assert got.startswith("Delta first. filler") and got.endswith("filler…")
    assert len(got) <= 201
