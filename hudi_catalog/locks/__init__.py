"""Hive's locks and transactions: the data types and the compatibility rules the lock service applies."""
