"""``analyze --executor dask``: the input files fanned out as Dask tasks (each task: the load,
if-conversion, facts, analyses and predicate statistics of a run of consecutive files),
gathered into one ``DirectoryAnalysis`` whose outputs are those of a local run (issue #17
item 5). A task holds about 1/4 of a worker's share of the files (``files_per_task``): one
engine call per task and scope instead of one per file (on the gcc torture directory, one
file per task was 2.6x slower than the local run: 1,791 engine start-ups).

Workers read the input files by path (a shared file system, as for any Dask cluster reading
data) and, with a cache, share its directory. A local cluster of ``workers`` processes is
started when no scheduler address is given.

Example
-------
>>> analyze_directory("corpus/", "runs/c",                                 # doctest: +SKIP
...                   executor=dask_executor("tcp://10.0.0.5:8786"))
"""
from __future__ import annotations

import contextlib
import functools
import multiprocessing
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Optional

from pylogic.analysis.cache import NO_CACHE, Cache
from pylogic.analysis.directory import (DirectoryAnalysis, analyze_loaded, function_rows,
                                        load_directory_cached)
from pylogic.analysis.run import AnalysisRun
from pylogic.engines.rows import Rows
from pylogic.errors import PathlogicError
from pylogic.ir.load import LoadedDirectory, discover, relative_name


@contextlib.contextmanager
def _children_allowed():
    """Dask's worker processes are daemonic, and multiprocessing refuses children to a daemon;
    the per-function budgets fork one child per call and reap it themselves (engines/budget.py),
    so the flag is lifted for the task's duration."""
    config = multiprocessing.current_process()._config
    daemon = config.get("daemon")
    config["daemon"] = False
    try:
        yield
    finally:
        if daemon is not None:
            config["daemon"] = daemon


def analyze_files(root: str, paths: list[str], cache_root: Optional[str], options: dict
                  ) -> DirectoryAnalysis:
    """One task: everything ``analyze`` does for these files (no output written)."""
    with _children_allowed():
        t0 = time.perf_counter()
        cache = Cache(Path(cache_root)) if cache_root else NO_CACHE
        items = [(Path(p), relative_name(root, Path(p))) for p in paths]
        loaded = load_directory_cached(Path(root), 1, cache, only=items)
        result = DirectoryAnalysis(str(root), Path("."), options["engine"], loaded, cache=cache)
        result.seconds["load"] = time.perf_counter() - t0
        analyze_loaded(result, jobs=1, **options)
        result.seconds["task"] = time.perf_counter() - t0
        return result


def merge(root: Path, out: Path, engine: str, parts: list[DirectoryAnalysis],
          cache: Cache) -> DirectoryAnalysis:
    """The per-file results, in file order, as one run over the directory."""
    loaded = LoadedDirectory(root)
    facts: dict[str, list[tuple]] = {}     # the relations the parts extracted
    rows = Rows()
    run = AnalysisRun(parts[0].run.engine if parts else engine, facts, rows)
    result = DirectoryAnalysis(str(root), out, run.engine, loaded, run=run, cache=cache)
    if_conversion: dict = {}
    seconds: Counter = Counter()
    for part in parts:
        loaded.programs.extend(part.loaded.programs)
        loaded.problems.extend(part.loaded.problems)
        for name, table in part.run.facts.items():
            facts.setdefault(name, []).extend(table)
        rows.extend(part.run.rows)
        run.calls.extend(part.run.calls)
        for mine, theirs in ((run.failures, part.run.failures), (run.scopes, part.run.scopes),
                             (run.module_failures, part.run.module_failures),
                             (run.timeouts, part.run.timeouts)):
            mine.update(theirs)
        result.failures.extend(part.failures)
        result.predicates.extend(part.predicates)
        if part.if_conversion is not None:
            if_conversion.update(part.if_conversion)
        if part.matrices is not None:
            result.matrices = {**(result.matrices or {}), **part.matrices}
        seconds.update(part.seconds)
        for kind, counter in part.cache.stats.items():
            cache.stats.setdefault(kind, Counter()).update(counter)
    result.functions = function_rows(run)
    result.if_conversion = if_conversion if any(p.if_conversion is not None for p in parts) \
        else None
    result.seconds = {f"tasks_{k}": v for k, v in seconds.items()}
    return result


def dask_executor(scheduler: Optional[str] = None, workers: int = 1,
                  per_task: Optional[int] = None) -> Callable[..., DirectoryAnalysis]:
    """The ``executor`` of ``analyze_directory`` that runs on Dask (see module doc)."""
    return functools.partial(analyze_on_dask, scheduler=scheduler, workers=workers,
                             per_task=per_task)


def files_per_task(files: int, workers: int) -> int:
    """About four tasks per worker (load balance), at least one file each."""
    return max(1, -(-files // (4 * max(1, workers))))


def analyze_on_dask(root: Path, out: Path, *, scheduler: Optional[str], workers: int,
                    cache: Cache, progress: Optional[Callable[[int, int], None]],
                    per_task: Optional[int] = None, **options) -> DirectoryAnalysis:
    """Fan the files under ``root`` out as tasks and gather them (see module doc)."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - dask[distributed] is a dependency
        raise PathlogicError(f"--executor dask needs dask.distributed ({exc})") from None
    paths = discover(root)
    if not paths:
        raise PathlogicError(f"{root}: no input files (.pir, .ll, .c) found")
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if scheduler:
            try:
                client = stack.enter_context(Client(scheduler, timeout="30s"))
            except (OSError, TimeoutError) as exc:
                raise PathlogicError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
        else:
            cluster = stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1,
                                                       processes=True, dashboard_address=None))
            client = stack.enter_context(Client(cluster))
        cache_root = str(cache.root) if cache.enabled else None
        threads = sum(client.nthreads().values()) or workers
        size = per_task or files_per_task(len(paths), threads)
        chunks = [[str(p) for p in paths[k:k + size]] for k in range(0, len(paths), size)]
        futures = {client.submit(analyze_files, str(root), chunk, cache_root, options,
                                 pure=False): k for k, chunk in enumerate(chunks)}
        parts: list = [None] * len(chunks)
        done_files = 0
        for future in as_completed(futures):
            k = futures[future]
            parts[k] = future.result()
            done_files += len(chunks[k])
            if progress:
                progress(done_files, len(paths))
    result = merge(root, out, options["engine"], parts, cache)
    result.seconds["dask"] = time.perf_counter() - t0
    result.seconds["dask_tasks"] = len(parts)
    return result
