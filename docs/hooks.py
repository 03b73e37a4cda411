# mkdocs hooks (mkdocs.yml `hooks:`): every paper's page and the index's paper table are made from
# the paper packages when the site is built (privrisk.pipeline.docs), so a new figure or paper needs
# no docs edit. Not a page: mkdocs.yml excludes this file from the site.
from privrisk.pipeline.docs import on_config, on_files, on_page_markdown  # noqa: F401
