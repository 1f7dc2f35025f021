"""The audit log: one hash-chained record per response, to JSONL and/or a Redis Stream.

Tampering (an edited, removed, inserted or reordered record) breaks the chain, which
``veriproxy audit verify`` reports.
"""

from proxy.audit.chain import GENESIS, ChainReport, chain_hash, verify_entries
from proxy.audit.jsonl import AuditFileError, JsonlSink, read_entries, verify_file
from proxy.audit.log import AuditLog
from proxy.audit.record import AuditRecord, AuditSentence, build_record
from proxy.audit.recorder import ResponseRecorder
from proxy.audit.redis_stream import DEFAULT_STREAM, RedisStreamSink, stream_entries
from proxy.audit.verify import verify_redis

__all__ = [
    "DEFAULT_STREAM",
    "GENESIS",
    "AuditFileError",
    "AuditLog",
    "AuditRecord",
    "AuditSentence",
    "ChainReport",
    "JsonlSink",
    "RedisStreamSink",
    "ResponseRecorder",
    "build_record",
    "chain_hash",
    "read_entries",
    "stream_entries",
    "verify_entries",
    "verify_file",
    "verify_redis",
]
