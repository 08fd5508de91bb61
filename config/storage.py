"""Static files as collectstatic writes them: Fray's own scripts without their comments.

Fray's scripts are written to be read, with a comment on every part; on a player's phone the comments were a third of
the bytes of the encounter page's first load (bench/page_weight.py). collectstatic therefore writes each script of
ours (static/js/) minified by rjsmin before WhiteNoise hashes and compresses it; the source files stay as written,
and the vendored htmx files, already minified, are left alone. DEBUG's runserver serves the sources.
"""

from django.core.files.base import ContentFile
from rjsmin import jsmin
from whitenoise.storage import CompressedManifestStaticFilesStorage

OURS = "js/"


class MinifiedManifestStaticFilesStorage(CompressedManifestStaticFilesStorage):
    def post_process(self, paths, dry_run=False, **options):
        if not dry_run:
            for path in [p for p in paths if p.startswith(OURS) and p.endswith(".js")]:
                source_storage, source_path = paths[path]
                with source_storage.open(source_path) as source:
                    script = source.read().decode()
                self.delete(path)
                self._save(path, ContentFile(jsmin(script, keep_bang_comments=True).encode()))
                paths[path] = (self, path)  # hash and compress the minified copy, not the source
        yield from super().post_process(paths, dry_run=dry_run, **options)
