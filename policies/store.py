"""A live set of policies loaded from directories of YAML files, with hot reload.

``reload()`` re-reads every file whose modification time or size changed. A file that is now
invalid is rejected: the policy it held before stays in force, a warning is logged, the
``reload_errors`` counter goes up and the ``on_reload_error`` hook is called (the proxy turns it
into a metric; this package never imports the proxy). ``start()`` polls in a daemon thread.

A file is taken only once it has stopped changing, so a half-written file is never in force
(a file cut before its ``sentence_rules`` is still a valid policy, only a weaker one): the
poller reads a changed file when a second poll finds it as the first one left it, and a file
that changes while it is being read is left for the next poll. Operators should still write a
policy file by rename (write ``x.yaml.tmp``, then ``mv`` it over ``x.yaml``): the rename is
atomic, and a ``.tmp`` file is not a policy file.

Selection: a request's explicit choice (the proxy checks first that its key may make it, see
``proxy.verification.selection``), else the policy whose
``match`` fits the tenant and model most specifically (tenant before model, exact before glob),
else the configured default policy (``default`` unless the store is told otherwise), else a
catch-all (``*``) match. The configured default comes before catch-alls so that configuring it
always makes it the default; a policy that can therefore never be selected by its match is
logged as shadowed at every reload (``policies.shadowing``).
"""

from __future__ import annotations

import fnmatch
import logging
import stat as stat_module
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from policies._model import Policy
from policies.errors import Issue, PolicyFileError, PolicyNotFound
from policies.loader import load_policy
from policies.shadowing import find_shadows

log = logging.getLogger(__name__)

PRESETS_DIR = Path(__file__).parent / "presets"
DEFAULT_POLL_SECONDS = 2.0
DEFAULT_POLICY = "default"
POLICY_SUFFIXES = (".yaml", ".yml")

ReloadErrorHook = Callable[[Path, PolicyFileError], None]


@dataclass(frozen=True, slots=True)
class _Loaded:
    stamp: tuple[int, int]  # (mtime_ns, size) of the file when last read, valid or not
    policy: Policy | None  # the last valid version; kept when a newer one is rejected


class PolicyStore:
    """Policies from ``directories`` (earlier ones win on a name clash; the shipped presets come
    last when ``include_presets``)."""

    def __init__(
        self,
        *directories: str | Path,
        include_presets: bool = True,
        default: str = DEFAULT_POLICY,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
        on_reload_error: ReloadErrorHook | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        dirs = [Path(d) for d in directories]
        self.directories = (*dirs, PRESETS_DIR) if include_presets else tuple(dirs)
        self.default = default
        self.poll_seconds = poll_seconds
        self.on_reload_error = on_reload_error
        # Called from the polling thread when a poll found changed files (the proxy tells the
        # other replicas through it); not called for reloads asked for by ``reload()``.
        self.on_change = on_change
        self.reload_errors = 0
        self.reloads = 0
        self._files: dict[Path, _Loaded] = {}
        self._seen: dict[Path, tuple[int, int]] = {}  # changed, waiting for a poll to settle
        self._by_name: dict[str, Policy] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.reload()

    # -- reading ------------------------------------------------------------------------------

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._by_name))

    def get(self, name: str) -> Policy:
        try:
            return self._by_name[name]
        except KeyError:
            raise PolicyNotFound(f"no policy named {name!r}") from None

    def select(
        self,
        *,
        tenant: str | None = None,
        model: str | None = None,
        requested: str | None = None,
    ) -> Policy:
        """The policy for one request (see the module docstring for the order)."""
        if requested:
            return self.get(requested)
        by_name = self._by_name  # one consistent snapshot even if a reload swaps it
        scored = [
            (score, name)
            for name, policy in by_name.items()
            if (score := _match_score(policy, tenant, model)) > 0
        ]
        best = max((score for score, _ in scored), default=0)
        if best > _CATCH_ALL_SCORE or (best and self.default not in by_name):
            return by_name[min(name for score, name in scored if score == best)]
        if self.default in by_name:
            return by_name[self.default]
        raise PolicyNotFound(f"no policy matches tenant={tenant!r} model={model!r} and no default")

    # -- reloading ----------------------------------------------------------------------------

    def reload(self, *, settle: bool = False) -> bool:
        """Re-read changed files; returns whether the set of policies changed. ``settle``
        (the poller): a changed file is read only when the previous call saw it as it is."""
        with self._lock:
            present = self._scan()
            changed = set(self._files) - set(present)
            for path in changed:
                log.info("policy file removed: %s", path)
                del self._files[path]
            for path, stamp in present.items():
                old = self._files.get(path)
                if old is not None and old.stamp == stamp:
                    continue
                if settle and self._seen.get(path) != stamp:
                    self._seen[path] = stamp  # still being written, maybe: the next poll reads it
                    continue
                self._seen.pop(path, None)
                loaded = self._read(path, old, stamp)
                if loaded is None:
                    continue  # it changed while being read: the next poll tries again
                changed.add(path)
                self._files[path] = loaded
            if changed:
                self._by_name = self._index(present, changed)
                self.reloads += 1
                for shadow in find_shadows(self._by_name.values(), self.default):
                    log.warning("%s", shadow)
            return bool(changed)

    def start(self) -> None:
        """Poll for changes every ``poll_seconds`` in a daemon thread until ``stop()``."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._poll, name="policy-reload", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> PolicyStore:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _poll(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                if self.reload(settle=True) and self.on_change is not None:
                    self.on_change()
            except Exception:  # keep polling whatever a hook or the file system throws
                log.exception("policy reload failed; retrying in %.1f s", self.poll_seconds)

    def _scan(self) -> dict[Path, tuple[int, int]]:
        found: dict[Path, tuple[int, int]] = {}
        for directory in self.directories:
            if not directory.is_dir():
                continue
            for path in sorted(directory.iterdir()):
                if path.suffix not in POLICY_SUFFIXES:
                    continue
                stamp = _stamp(path)
                if stamp is not None:
                    found[path] = stamp
        return found

    def _read(self, path: Path, old: _Loaded | None, stamp: tuple[int, int]) -> _Loaded | None:
        """The file as now read (its last valid policy kept when it is rejected), or None when
        it changed while being read."""
        previous = old.policy if old is not None else None
        try:
            policy = load_policy(path)
        except PolicyFileError as exc:
            if _stamp(path) != stamp:
                return None
            self._reject(path, exc, previous.name if previous is not None else None)
            return _Loaded(stamp, previous)
        if _stamp(path) != stamp:
            return None
        log.info("policy loaded: %s from %s", policy.name, path)
        return _Loaded(stamp, policy)

    def _index(self, present: dict[Path, tuple[int, int]], changed: set[Path]) -> dict[str, Policy]:
        by_name: dict[str, Policy] = {}
        owner: dict[str, Path] = {}
        for path in present:  # directory order, then file name: the first file wins a name
            policy = self._files[path].policy
            if policy is None:
                continue
            if policy.name in by_name:
                clash = f"policy {policy.name!r} is already defined in {owner[policy.name]}"
                issue = Issue(str(path), 1, "name", clash)
                if path in changed:  # report a clash once, when the file appears or changes
                    self._reject(path, PolicyFileError((issue,)), None)
                continue
            by_name[policy.name] = policy
            owner[policy.name] = path
        return by_name

    def _reject(self, path: Path, error: PolicyFileError, kept: str | None) -> None:
        self.reload_errors += 1
        keeping = f"; keeping the previous version of {kept!r}" if kept else ""
        log.warning("policy file rejected: %s%s", error, keeping)
        if self.on_reload_error is not None:
            self.on_reload_error(path, error)


def _stamp(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of a regular file; None when it is gone or not a regular file."""
    try:
        stat = path.stat()
    except FileNotFoundError:  # removed between listing and stat
        return None
    return (stat.st_mtime_ns, stat.st_size) if stat_module.S_ISREG(stat.st_mode) else None


_CATCH_ALL_SCORE = 1  # what _match_score gives a match on '*' alone


def _match_score(policy: Policy, tenant: str | None, model: str | None) -> int:
    """0 when the policy does not match; higher is more specific. Tenant outweighs model."""
    match = policy.match
    if not match.tenants and not match.models:
        return 0
    tenant_score = _glob_score(match.tenants, tenant)
    model_score = _glob_score(match.models, model)
    if tenant_score < 0 or model_score < 0:
        return 0
    return 1 + 3 * tenant_score + model_score


def _glob_score(patterns: Sequence[str], value: str | None) -> int:
    """-1 no match, 0 not constrained (or only '*'), 1 glob match, 2 exact match."""
    if not patterns:
        return 0
    if value is None:
        return 0 if "*" in patterns else -1
    if value in patterns:
        return 2
    matched = [p for p in patterns if fnmatch.fnmatchcase(value, p)]
    if not matched:
        return -1
    return 0 if matched == ["*"] else 1
