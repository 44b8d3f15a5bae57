"""The site's language: catalogues of interface strings (:mod:`.catalogue`), one per language,
bundled in ``locales/`` and overridable per project in ``i18n/<tag>.toml`` (docs/i18n.md)."""

from posecode_ssg.i18n.catalogue import (
    Catalogue,
    CatalogueError,
    active,
    bundled_languages,
    catalogue,
    fallback_chain,
    normalise_tag,
    set_active,
    using,
)

__all__ = ["Catalogue", "CatalogueError", "active", "bundled_languages", "catalogue", "fallback_chain",
           "normalise_tag", "set_active", "using"]
