"""The pages' parts (not pages): the frame (common.py: shared widgets, guards, the URL state;
data.py: the cached reads) and each page's helpers, named after their page. A sub-package, so
Streamlit's navigation never lists them as pages."""
