"""Deprecated: moved to :mod:`verifiers.training.export_encoder` (training code, not the
library); run ``python -m verifiers.training.export_encoder``. This path goes in the next
release."""

from __future__ import annotations

import warnings

from verifiers.training.export_encoder import main

# Run as a script, the warning is this module's own (``__main__``'s are shown by default);
# imported, it is the importer's.
warnings.warn(
    "verifiers.export_encoder moved to verifiers.training.export_encoder",
    DeprecationWarning,
    stacklevel=1 if __name__ == "__main__" else 2,
)

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
