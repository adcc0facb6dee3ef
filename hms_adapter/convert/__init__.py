"""Conversions between HMS Thrift structs and catalog models, one module per entity."""
