"""Spark integration: metastore-driven reads of Hudi tables and Spark-scale imports."""
