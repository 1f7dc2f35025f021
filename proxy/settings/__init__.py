"""The configuration's sections, each declared once.

Every class here is both what the rest of the proxy receives (a frozen, slotted dataclass) and
the schema its YAML section is validated against: :mod:`proxy.config` hands the merged mapping
to pydantic, which reads the bounds in each field's ``Annotated`` metadata (``annotated_types``)
and refuses unknown keys (:class:`~proxy.settings._section.Section`).

These modules import neither pydantic nor the modules that use them (Redis, Prometheus, the
verifier), so reading the configuration stays cheap: ``bench/import_cost.py`` measures it.

=====================  ==============================================================
module                 sections
=====================  ==============================================================
``upstream``           ``default_upstream``/``models``, ``timeouts``, ``pool``, ``retry``
``limits``             ``limits``
``state``              ``redis``, ``rate_limits``, ``audit``
``retrieval``          ``retrieval``
``verification``       ``verification``
``review``             ``review``
:mod:`proxy.config`    the top level, ``auth``, ``metrics``, and the loader
=====================  ==============================================================
"""

from proxy.settings._section import Pattern, Section

__all__ = ["Pattern", "Section"]
