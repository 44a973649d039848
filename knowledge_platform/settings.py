"""Process settings from the environment. Everything a run keeps lives under KP_HOME."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
DEMO_CONFIG = REPO_ROOT / "demo" / "registry.yaml"
#: Where `kp up` records the URLs it serves (Dagster UI, MCP), under KP_HOME.
URLS_FILE = "urls.json"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore")

    home: Path = Field(default=Path(".kp"), validation_alias="KP_HOME")
    config: Path = Field(default=DEMO_CONFIG, validation_alias="KP_CONFIG")
    #: Built model files (ONNX graphs); shared across homes so tests build the model once.
    model_cache: Path | None = Field(default=None, validation_alias="KP_MODEL_CACHE")
    dagster_url: str = Field(default="http://127.0.0.1:3000", validation_alias="KP_DAGSTER_URL")
    mcp_host: str = Field(default="127.0.0.1", validation_alias="KP_MCP_HOST")
    mcp_port: int = Field(default=8001, validation_alias="KP_MCP_PORT")
    #: MCP service processes sharing the port (each its own reader of the published index).
    mcp_workers: int = Field(default=1, ge=1, le=16, validation_alias="KP_MCP_WORKERS")
    #: A deployment's Dagster instance directory (compose sets it); default under KP_HOME.
    dagster_home_env: Path | None = Field(default=None, validation_alias="DAGSTER_HOME")
    #: The service's clock, fixed (an ISO date or date-time; naive: the registry's timezone)
    #: for evaluations and reproductions; unset: the real clock.
    now: dt.datetime | None = Field(default=None, validation_alias="KP_NOW")

    @model_validator(mode="after")
    def _recorded_dagster_url(self) -> Settings:
        """Without KP_DAGSTER_URL, the Dagster that `kp up` started for this KP_HOME."""
        if "dagster_url" not in self.model_fields_set:
            self.dagster_url = recorded_urls(self.home_dir).get("dagster", self.dagster_url)
        return self

    @property
    def home_dir(self) -> Path:
        return self.home.expanduser().resolve()

    @property
    def data_dir(self) -> Path:
        return self.home_dir / "data"

    @property
    def shards_dir(self) -> Path:
        return self.home_dir / "qdrant"

    @property
    def cache_dir(self) -> Path:
        return self.home_dir / "cache"

    @property
    def models_dir(self) -> Path:
        return (self.model_cache or self.home_dir / "models").expanduser().resolve()

    @property
    def dagster_home(self) -> Path:
        return (self.dagster_home_env or self.home_dir / "dagster").expanduser().resolve()

    @property
    def query_log(self) -> Path:
        return self.home_dir / "logs" / "queries.jsonl"


def recorded_urls(home: Path) -> dict[str, str]:
    """The URLs `kp up` last recorded under `home` ({} if none, or unreadable)."""
    try:
        data = json.loads((home / URLS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}


def load_settings() -> Settings:
    return Settings()
