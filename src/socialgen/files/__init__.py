"""Stored files (carousel images, PDFs, thumbnails), one folder per workspace.

The file store is `store.py`'s `FileStore`, which writers are handed, made by
`backends.files_of(runtime)` over the backend `backends.py` chooses: the local folder
`$SOCIALGEN_HOME/files/<workspace>/` (`local.py`) or an S3-compatible bucket (`s3.py`,
through obstore), both behind `backend.py`'s protocol. `layout.py` says where each
owner's files live; `folders.py` lists the owner folders, with their newest file, for
the sweep of abandoned carousels.

`serving.py` answers `GET /api/v1/files/...` (the file, its bytes streamed, or a
presigned redirect); `local_copy.py` makes local copies of a bucket's files for the
CLI, and `migrate.py` copies a local folder into the bucket. The faces are the admin
slice's (`admin/files_api.py`, `admin/files_cli.py`: `socialgen files migrate`): this
package is a gateway every layer above uses, so it holds none.
"""
