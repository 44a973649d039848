"""Named exception types of the core. Messages are one line: what was wrong, what to do."""


class KnowledgePlatformError(Exception):
    """Base of every error the core raises on purpose."""


class ConfigError(KnowledgePlatformError):
    """The registry or settings are invalid."""


class SourceError(KnowledgePlatformError):
    """A source could not be read (outage, auth, malformed response)."""


class EmbeddingError(KnowledgePlatformError):
    """The embedding provider failed after its retries."""


class ModelMismatchError(KnowledgePlatformError):
    """A collection holds vectors of another embedding model or dimension."""


class DeletionGuardError(KnowledgePlatformError):
    """A reconcile would delete more than the allowed share of a partition's points."""


class StoreError(KnowledgePlatformError):
    """The vector store refused an operation."""


class AccessDeniedError(KnowledgePlatformError):
    """A principal asked for a scope or document outside its grant."""


class QueryError(KnowledgePlatformError):
    """A search text the platform cannot use (blank)."""
