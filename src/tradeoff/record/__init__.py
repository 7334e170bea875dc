"""Record: the hash-chained session file, written answer by answer, read and replayed."""
