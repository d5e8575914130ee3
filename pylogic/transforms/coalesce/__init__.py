"""Copy coalescing and copy propagation: ``coalesce`` (removes ``mov`` copies by renaming)."""
