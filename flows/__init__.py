"""Prefect flows and the `etplan` command line: thin orchestration over the packages."""
