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


def test_a_word_the_window_cuts_counts_as_what_is_left_of_it() -> None:
    # the second sentence's window ends after "cell" of "cellular": a query word; one
    # character on, it ends after "cel", which is none
    def text(pad: int) -> str:
        return "Opening words first. Then " + "x" * pad + " cellular and more after the cut."

    assert snippet(text(190), "cell").startswith("…Then x")
    assert snippet(text(191), "cell").startswith("Opening words first.")


def test_a_letter_that_lowercases_to_two_reads_as_it_did() -> None:
    # 'İ' lower-cases to 'i' and a combining dot (not a word character): 'İzmir' is read
    # as 'i' and 'zmir'
    text = f"Opening line here. {FILLER}. Our İzmir office. {FILLER}"
    assert snippet(text, "zmir").startswith("…Our İzmir office. filler")
