"""`make bench`: run the benchmarks and write bench/RESULTS.md. Each result is a ratio to a baseline measured
in the same run, never a bare timing."""

from pathlib import Path

from bench.setup import django_on_temp_db, git_revision, machine


def main():
    django_on_temp_db()
    from bench import replay_and_export

    lines = ["| benchmark | result | baseline (same run) | ratio |", "|---|---|---|---|"]
    replay_and_export.run(lines)
    text = (f"# Benchmark results\n\nMachine: {machine()}.\nRevision: {git_revision()}.\n\n"
            + "\n".join(lines) + "\n")
    (Path(__file__).parent / "RESULTS.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
