"""The kernel's share of a TCP -> UDP -> TCP relay on loopback, with no
protocol work: CPU seconds (user + system, this process) per GB of one TCP
stream sent straight to a sink, and of the same stream relayed as 65416-byte
UDP datagrams (one ack datagram back per 16, so that none is dropped).
Usage: python3 floor.py MEGABYTES ROUNDS"""
import resource, socket, sys, threading, time

MB = int(sys.argv[1]) if len(sys.argv) > 1 else 500
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
TOTAL = MB << 20
CHUNK = bytes(64 << 10)
MSG = 65416
ACK_EVERY = 16
WINDOW = 32


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def sink(listener, out):
    c, _ = listener.accept()
    buf = bytearray(256 << 10)
    n = 0
    while True:
        k = c.recv_into(buf)
        if k == 0:
            break
        n += k
    out.append(n)
    c.close()


def sender(addr):
    s = socket.create_connection(addr)
    left = TOTAL
    while left > 0:
        k = min(left, len(CHUNK))
        s.sendall(CHUNK[:k])
        left -= k
    s.close()


def listener():
    l = socket.socket()
    l.bind(("127.0.0.1", 0))
    l.listen(1)
    return l


def udp():
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    u.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    u.bind(("127.0.0.1", 0))
    return u


def entry(l, u1, peer):
    """TCP in, UDP out; waits for acks to keep WINDOW datagrams in flight."""
    c, _ = l.accept()
    buf = bytearray(MSG)
    sent = acked = 0
    while True:
        k = c.recv_into(buf)
        if k == 0:
            break
        while sent - acked >= WINDOW:
            u1.recv(16)
            acked += ACK_EVERY
        u1.sendto(memoryview(buf)[:k], peer)
        sent += 1
    u1.sendto(b"", peer)


def exit_(u2, to):
    """UDP in, TCP out; an ack every ACK_EVERY datagrams."""
    t = socket.create_connection(to)
    buf = bytearray(MSG)
    n = 0
    while True:
        k, frm = u2.recvfrom_into(buf)
        if k == 0:
            break
        t.sendall(memoryview(buf)[:k])
        n += 1
        if n % ACK_EVERY == 0:
            u2.sendto(b"a", frm)
    t.close()


def run(relayed):
    sl = listener()
    got = []
    ts = [threading.Thread(target=sink, args=(sl, got))]
    if relayed:
        l, u1, u2 = listener(), udp(), udp()
        ts += [
            threading.Thread(target=entry, args=(l, u1, u2.getsockname())),
            threading.Thread(target=exit_, args=(u2, sl.getsockname())),
        ]
        to = l.getsockname()
    else:
        to = sl.getsockname()
    for t in ts:
        t.start()
    c0, t0 = cpu(), time.time()
    sender(to)
    for t in ts:
        t.join()
    dt, dc = time.time() - t0, cpu() - c0
    assert got == [TOTAL], got
    return TOTAL / dt / 1e6, dc / (TOTAL / 1e9)


for r in range(ROUNDS):
    for relayed in (False, True):
        mbps, s = run(relayed)
        kind = "TCP-UDP-TCP relay" if relayed else "direct TCP"
        print(f"{kind:18} {mbps:7.0f} MB/s  {s:.2f} CPU s/GB", flush=True)
