"""Build use cases: validate a build request (request.py), assemble the world a build runs in
(world.py), run it in this process (local.py) or as stored stages on Kafka workers (control.py,
stages.py), and render and store its files (output_files.py, output_writer.py, build_records.py)."""
