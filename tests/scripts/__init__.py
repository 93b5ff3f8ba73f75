"""The measuring scripts of scripts/, on small hand-made inputs."""
