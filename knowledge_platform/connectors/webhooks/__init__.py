"""The push side's contract, beside `connectors/base.py` (pull) and `spec.py`: what a
webhook delivery becomes (events.py), how it is authenticated (verify.py), what a parser is
given (parsing.py), and what a push source provides — parse, register, health — with the
records `kp hooks register` keeps (contract.py). Each push source implements it in its own
`connectors/<source>/push.py`, named by its `SourceSpec.push`; `knowledge_platform.hooks` keeps
only the machinery (queue, receive, coalesce, limits, the registrations store, the generic
register and status loops) and reaches a source through the catalog."""
