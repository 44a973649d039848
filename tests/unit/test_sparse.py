from knowledge_platform.sparse import SparseEncoder, term_id


def test_terms_are_stemmed_lowercased_and_stopwords_dropped():
    enc = SparseEncoder()
    assert enc.terms("The Runners were RUNNING to the tests") == ["runner", "run", "test"]


def test_document_weights_saturate_and_query_weights_are_one():
    enc = SparseEncoder()
    once = enc.encode_document("checkout")
    many = enc.encode_document("checkout " * 20)
    assert once.indices == many.indices == [term_id("checkout")]
    assert once.values[0] < many.values[0] < enc.k1 + 1
    query = enc.encode_query("checkout tests checkout")
    assert sorted(query.values) == [1.0, 1.0]
    assert query.indices == sorted(query.indices)


def test_stopword_only_query_is_empty():
    assert SparseEncoder().encode_query("the and of").indices == []


def test_other_words_weigh_less_than_the_query_own():
    query = SparseEncoder().encode_query("headline metric", also="metric kpi", weight=0.5)
    weights = dict(zip(query.indices, query.values, strict=True))
    assert weights == {term_id("headlin"): 1.0, term_id("metric"): 1.0, term_id("kpi"): 0.5}
