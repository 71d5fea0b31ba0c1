//! CRC32c (Castagnoli) checksum of SCTP packets, RFC 9260 appendix A.
