"""Named exception types of the core. Messages are one line: what was wrong, what to do."""

from knowledge_platform.redact import redact


class KnowledgePlatformError(Exception):
    """Base of every error the core raises on purpose. Its message has every secret value
    the process resolved masked (redact.py): text a server sent back may repeat the
    credential it was sent, and messages reach logs, Dagster's event log, `kp` and MCP."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


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


class ConversionError(KnowledgePlatformError):
    """A file could not be turned into text; it is skipped and `str(error)` says why.

    `reason` is a short stable code for counting skips (metadata, status), the message is
    the one line an operator reads."""

    reason = "unreadable"


class UnsupportedFormatError(ConversionError):
    """The MIME type (or file name) is not one the converter reads."""

    reason = "unsupported"


class FileTooLargeError(ConversionError):
    """The file is larger than the size cap; it was not read whole."""

    reason = "too_large"


class EncryptedFileError(ConversionError):
    """The file needs a password (an encrypted PDF, a password-protected Office file)."""

    reason = "encrypted"


class NoTextLayerError(ConversionError):
    """A PDF with no extractable text on any page: a scan, and OCR is not enabled."""

    reason = "no_text_layer"


class CorruptFileError(ConversionError):
    """The bytes are not a readable file of the type they claim (e.g. a broken zip)."""

    reason = "corrupt"


class DecompressionBombError(ConversionError):
    """A compressed file that would unpack far beyond the unpacked-size limit."""

    reason = "decompression_bomb"


class MacrosError(ConversionError):
    """An Office file carrying VBA macros; skipped, and its macros are never run."""

    reason = "macros"


class ConversionLimitError(ConversionError):
    """Converting the file went past its time or memory limit and was stopped."""

    reason = "limit"


class SecretError(ConfigError):
    """A secret could not be resolved. Messages name where the secret was looked for (an
    environment variable, a 1Password reference), never its value."""


class SecretReferenceError(SecretError):
    """A vault reference is malformed or names nothing (`op://vault/item/[section/]field`)."""


class VaultUnavailableError(SecretError):
    """No way to read the vault: neither OP_SERVICE_ACCOUNT_TOKEN (the SDK) nor `op` on PATH."""


class VaultReadError(SecretError):
    """The 1Password SDK or the `op` CLI failed to read a reference."""


class VaultTimeoutError(VaultReadError):
    """Reading a reference took longer than the allowed time."""


class QueryError(KnowledgePlatformError):
    """A search text the platform cannot use (blank)."""
