/*
 * usrsctp_peer: the one usrsctp program of msctp's tests and benchmarks,
 * with a mode per use. SCTP over UDP (RFC 6951) only: callers run it with
 * CAP_NET_RAW dropped (capsh), so usrsctp cannot open raw SCTP sockets.
 *
 * Interoperability (crates/net/tests/usrsctp_interop.rs):
 *
 *   usrsctp_peer server UDP_PORT SCTP_PORT OUT_FILE
 *       usrsctp_init(UDP_PORT); listens on 0.0.0.0:SCTP_PORT, accepts one
 *       association, writes every byte received to OUT_FILE, and exits
 *       when the peer shuts the association down.
 *
 *   usrsctp_peer client UDP_PORT PEER_UDP_PORT PEER_ADDR SCTP_PORT IN_FILE [asconf]
 *       usrsctp_init(UDP_PORT); binds 127.0.0.1 only, connects to
 *       PEER_ADDR:SCTP_PORT over UDP port PEER_UDP_PORT, sends IN_FILE in
 *       16 kB messages. With "asconf", after the first half: bindx adds
 *       127.0.0.2 (ASCONF Add IP), then asks the peer to make it primary
 *       (ASCONF Set Primary Address), then sends the rest. Graceful
 *       shutdown at the end.
 *
 *   usrsctp_peer pr-client UDP_PORT PEER_UDP_PORT PEER_ADDR SCTP_PORT COUNT [SIZE]
 *       As client, but sends COUNT messages of SIZE bytes (1000 unless
 *       given, at most 16384; a 4-byte
 *       big-endian index, then filler) on stream 0, each with PR-SCTP's
 *       limited retransmissions policy and no retransmission
 *       (SCTP_PR_SCTP_RTX, pr_value 0, RFC 7496 section 3.1): a message
 *       lost once is abandoned and skipped with FORWARD TSN (crates/net/
 *       tests/usrsctp_prsctp.rs). Graceful shutdown at the end.
 *
 * Stream reconfiguration (RFC 6525; crates/net/tests/usrsctp_reconfig.rs).
 * Both modes allow every request of the peer (SCTP_ENABLE_STREAM_RESET:
 * reset streams, reset the association, add streams), subscribe to the
 * stream reset and stream change notifications, and log to stderr one
 * line per event:
 *     msg SID SSN INDEX              a message (INDEX: its first 4 bytes)
 *     reset FLAGS SID...             SCTP_STREAM_RESET_EVENT
 *     change FLAGS INBOUND OUTBOUND  SCTP_STREAM_CHANGE_EVENT
 *
 *   usrsctp_peer reset-server UDP_PORT SCTP_PORT
 *       Accepts one association and logs until it ends.
 *   usrsctp_peer reset-client UDP_PORT PEER_UDP_PORT PEER_ADDR SCTP_PORT COUNT
 *       Sends COUNT messages (100 bytes, a 4-byte big-endian index) on
 *       stream 1; resets outgoing stream 1 (SCTP_RESET_STREAMS) and waits
 *       for its event; sends COUNT more on stream 1; adds 2 outgoing
 *       streams (SCTP_ADD_STREAMS), waits for the change event and sends
 *       one message (index 2 COUNT) on the last stream. Graceful shutdown.
 *
 * Captures for the wire codec's test data (scripts/capture-usrsctp.sh,
 * crates/proto/testdata/usrsctp/README.md):
 *
 *   usrsctp_peer capture-server
 *       UDP port 9899, SCTP port 5001, echoes every message, serves three
 *       associations.
 *   usrsctp_peer capture-client
 *       UDP port 9900 -> 9899, from 127.0.0.1:
 *       association 1 (SCTP port 5002): handshake; DATA (odd size,
 *         unordered, I bit, fragmented); ASCONF Add-IP 127.0.0.2; ASCONF
 *         Set-Primary 127.0.0.2; ASCONF Delete-IP 127.0.0.2; heartbeats on
 *         idle paths; graceful shutdown.
 *       association 2 (SCTP port 5003): handshake, one DATA, ASCONF Add-IP
 *         127.0.0.2, then ASCONF Delete-IP 127.0.0.1, the packets' own
 *         source address, which the server refuses (Error Cause
 *         Indication, Delete Source Address); its ASCONF-ACK then reaches
 *         an address the client no longer owns, and the client answers it
 *         with an ABORT (T bit).
 *       association 3 (SCTP port 5004): handshake, one DATA, ABORT
 *         (linger 0).
 *
 * The server benchmark (crates/net/src/bench_server/usrsctp.rs):
 *
 *   usrsctp_peer bench-server UDP_PORT SCTP_PORT ADDR
 *       usrsctp_init(UDP_PORT); one one-to-many socket (SOCK_SEQPACKET,
 *       RFC 6458 section 3) bound to ADDR:SCTP_PORT and listening, every
 *       association held on it. Prints "listening" once ready. Each line
 *       "count" on stdin is answered with "associations UP NOW" (UP: ever
 *       established, SCTP_COMM_UP; NOW: still up); exits at the end of
 *       stdin.
 *
 * With the environment variable USRSCTP_PEER_IDATA=1, every socket also
 * offers I-DATA (RFC 8260; usrsctp's SCTP_INTERLEAVING_SUPPORTED, which
 * needs SCTP_FRAGMENT_INTERLEAVE level 2 first): an association with a
 * peer that offers it too then carries I-DATA and I-FORWARD-TSN
 * (crates/net/tests/usrsctp_prsctp.rs).
 *
 * usrsctp defaults apply otherwise (ADD-IP, AUTH with HMAC-SHA1,
 * auto-ASCONF on, heartbeat every 30 s unless a mode sets it). Built with
 * gcc -O2 usrsctp_peer.c $(pkg-config --cflags --libs usrsctp) -lpthread.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <usrsctp.h>

#define MSG 16384
#define CAPTURE_SERVER_UDP 9899
#define CAPTURE_CLIENT_UDP 9900
#define CAPTURE_SERVER_PORT 5001
/* Not in the installed usrsctp.h of 0.9.5; usrsctp's netinet/sctp.h value. */
#ifndef SCTP_INTERLEAVING_SUPPORTED
#define SCTP_INTERLEAVING_SUPPORTED 0x00001206
#endif

/* ---- shared part ---- */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static struct sockaddr_in addr4(const char *ip, uint16_t port)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", ip);
		exit(2);
	}
	return a;
}

/* Starts the stack on UDP port `udp`; heartbeat interval in ms (0: usrsctp's). */
static void start(uint16_t udp, uint32_t heartbeat_ms)
{
	usrsctp_init(udp, NULL, NULL);
	if (heartbeat_ms > 0)
		usrsctp_sysctl_set_sctp_heartbeat_interval_default(heartbeat_ms);
}

static void finish(void)
{
	int i;
	for (i = 0; i < 30 && usrsctp_finish() != 0; i++)
		sleep(1);
}

static struct socket *new_socket(int type)
{
	struct socket *s = usrsctp_socket(AF_INET, type, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	const char *idata = getenv("USRSCTP_PEER_IDATA");

	if (s == NULL)
		die("usrsctp_socket");
	if (idata != NULL && strcmp(idata, "1") == 0) {
		int level = 2;
		struct sctp_assoc_value av;

		if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, &level, sizeof(level)) < 0)
			die("SCTP_FRAGMENT_INTERLEAVE");
		memset(&av, 0, sizeof(av));
		av.assoc_id = SCTP_FUTURE_ASSOC;
		av.assoc_value = 1;
		if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, &av, sizeof(av)) < 0)
			die("SCTP_INTERLEAVING_SUPPORTED");
	}
	return s;
}

static void bind_to(struct socket *s, const char *ip, uint16_t port)
{
	struct sockaddr_in a = addr4(ip, port);
	if (usrsctp_bind(s, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind");
}

/* A listening socket of `type` on ip:port. */
static struct socket *listener(int type, const char *ip, uint16_t port, int backlog)
{
	struct socket *ls = new_socket(type);
	bind_to(ls, ip, port);
	if (usrsctp_listen(ls, backlog) < 0)
		die("listen");
	return ls;
}

/* A client socket that reaches the peer over UDP port `peer_udp`. */
static struct socket *client_socket(uint16_t peer_udp)
{
	struct socket *s = new_socket(SOCK_STREAM);
	struct sctp_udpencaps enc;

	memset(&enc, 0, sizeof(enc));
	enc.sue_address.ss_family = AF_INET;
	enc.sue_port = htons(peer_udp);
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &enc, sizeof(enc)) < 0)
		die("SCTP_REMOTE_UDP_ENCAPS_PORT");
	return s;
}

static void connect_to(struct socket *s, const char *ip, uint16_t port)
{
	struct sockaddr_in remote = addr4(ip, port);
	if (usrsctp_connect(s, (struct sockaddr *)&remote, sizeof(remote)) < 0)
		die("connect");
}

/* One message or notification; <= 0 at the end of the association. */
static ssize_t recv_msg(struct socket *s, void *buf, size_t len, struct sctp_rcvinfo *rcv,
			unsigned int *infotype, int *flags)
{
	socklen_t infolen = sizeof(*rcv);
	*infotype = 0;
	*flags = 0;
	return usrsctp_recvv(s, buf, len, NULL, NULL, rcv, &infolen, infotype, flags);
}

/* Reads until the association ends. */
static void drain(struct socket *s)
{
	static char buf[4096];
	struct sctp_rcvinfo rcv;
	unsigned int infotype;
	int flags;

	while (recv_msg(s, buf, sizeof(buf), &rcv, &infotype, &flags) > 0)
		;
}

/* bindx add or remove of one address (an ASCONF), then a pause. */
static void bindx(struct socket *s, const char *ip, int flags, int fatal, unsigned int wait_ms)
{
	struct sockaddr_in a = addr4(ip, 0);
	if (usrsctp_bindx(s, (struct sockaddr *)&a, 1, flags) < 0) {
		if (fatal)
			die("bindx");
		perror("bindx");
	}
	usleep(wait_ms * 1000);
}

/* Asks the peer to make `ip` its primary (ASCONF Set Primary Address). */
static void set_peer_primary(struct socket *s, const char *ip, int fatal, unsigned int wait_ms)
{
	struct sctp_setpeerprim prim;
	struct sockaddr_in a = addr4(ip, 0);

	memset(&prim, 0, sizeof(prim));
	memcpy(&prim.sspp_addr, &a, sizeof(a));
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_SET_PEER_PRIMARY_ADDR, &prim, sizeof(prim)) < 0) {
		if (fatal)
			die("SCTP_SET_PEER_PRIMARY_ADDR");
		perror("SCTP_SET_PEER_PRIMARY_ADDR");
	}
	usleep(wait_ms * 1000);
}

/* Closes with SO_LINGER 0: an ABORT. */
static void abort_close(struct socket *s)
{
	struct linger lg;
	lg.l_onoff = 1;
	lg.l_linger = 0;
	if (usrsctp_setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0)
		perror("SO_LINGER");
	usrsctp_close(s);
}

/* ---- interoperability ---- */

static int run_server(uint16_t udp, uint16_t port, const char *out)
{
	struct socket *ls, *s;
	static char buf[1 << 16];
	FILE *f = fopen(out, "wb");
	long long total = 0;

	if (f == NULL)
		die("fopen");
	start(udp, 500);
	ls = listener(SOCK_STREAM, "0.0.0.0", port, 1);
	fprintf(stderr, "listening\n");
	s = usrsctp_accept(ls, NULL, NULL);
	if (s == NULL)
		die("accept");
	for (;;) {
		struct sctp_rcvinfo rcv;
		unsigned int infotype;
		int flags;
		ssize_t n = recv_msg(s, buf, sizeof(buf), &rcv, &infotype, &flags);
		if (n <= 0)
			break;
		if (flags & MSG_NOTIFICATION)
			continue;
		if (fwrite(buf, 1, (size_t)n, f) != (size_t)n)
			die("fwrite");
		total += n;
	}
	fclose(f);
	fprintf(stderr, "received %lld bytes\n", total);
	usrsctp_close(s);
	usrsctp_close(ls);
	finish();
	return 0;
}

static void send_all(struct socket *s, FILE *f, long long limit)
{
	static char buf[MSG];
	long long sent = 0;
	struct sctp_sndinfo snd;

	memset(&snd, 0, sizeof(snd));
	snd.snd_ppid = htonl(0x6d730002);
	while (limit < 0 || sent < limit) {
		size_t want = MSG;
		size_t n;
		if (limit >= 0 && (long long)want > limit - sent)
			want = (size_t)(limit - sent);
		n = fread(buf, 1, want, f);
		if (n == 0)
			break;
		if (usrsctp_sendv(s, buf, n, NULL, 0, &snd, sizeof(snd), SCTP_SENDV_SNDINFO, 0) < 0)
			die("sendv");
		sent += (long long)n;
	}
}

static int run_client(uint16_t udp, uint16_t peer_udp, const char *peer, uint16_t port,
		      const char *in, int asconf)
{
	struct socket *s;
	FILE *f = fopen(in, "rb");
	long size;

	if (f == NULL)
		die("fopen");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	start(udp, 500);
	s = client_socket(peer_udp);
	/* Bound to one address, so that bindx sends ASCONF. */
	bind_to(s, "127.0.0.1", 0);
	connect_to(s, peer, port);
	fprintf(stderr, "connected\n");
	if (asconf) {
		send_all(s, f, size / 2);
		bindx(s, "127.0.0.2", SCTP_BINDX_ADD_ADDR, 1, 300);
		set_peer_primary(s, "127.0.0.2", 1, 300);
		fprintf(stderr, "asconf done\n");
	}
	send_all(s, f, -1);
	fclose(f);
	if (usrsctp_shutdown(s, SHUT_WR) < 0)
		die("shutdown");
	/* Wait for the SHUTDOWN exchange (the read returns 0 when done). */
	drain(s);
	fprintf(stderr, "sent %ld bytes\n", size);
	usrsctp_close(s);
	finish();
	return 0;
}

static int run_pr_client(uint16_t udp, uint16_t peer_udp, const char *peer, uint16_t port,
			 int count, size_t size)
{
	struct socket *s;
	static char buf[MSG];
	struct sctp_sendv_spa spa;
	int i;

	start(udp, 500);
	s = client_socket(peer_udp);
	bind_to(s, "127.0.0.1", 0);
	connect_to(s, peer, port);
	fprintf(stderr, "connected\n");
	memset(&spa, 0, sizeof(spa));
	spa.sendv_sndinfo.snd_ppid = htonl(0x6d730003);
	spa.sendv_prinfo.pr_policy = SCTP_PR_SCTP_RTX;
	spa.sendv_prinfo.pr_value = 0;
	spa.sendv_flags = SCTP_SEND_SNDINFO_VALID | SCTP_SEND_PRINFO_VALID;
	if (size < 4 || size > sizeof(buf)) {
		fprintf(stderr, "bad message size %zu\n", size);
		exit(2);
	}
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < count; i++) {
		uint32_t k = htonl((uint32_t)i);
		memcpy(buf, &k, 4);
		if (usrsctp_sendv(s, buf, size, NULL, 0, &spa, sizeof(spa), SCTP_SENDV_SPA, 0) < 0)
			die("sendv");
	}
	if (usrsctp_shutdown(s, SHUT_WR) < 0)
		die("shutdown");
	drain(s);
	fprintf(stderr, "sent %d messages\n", count);
	usrsctp_close(s);
	finish();
	return 0;
}

/* ---- stream reconfiguration ---- */

/* Allows the peer's requests and subscribes to the events. */
static void reconfig_socket(struct socket *s)
{
	struct sctp_assoc_value av;
	struct sctp_event ev;
	const int on = 1;
	uint16_t types[] = {SCTP_STREAM_RESET_EVENT, SCTP_STREAM_CHANGE_EVENT};
	size_t i;

	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	av.assoc_value = SCTP_ENABLE_RESET_STREAM_REQ | SCTP_ENABLE_RESET_ASSOC_REQ |
			 SCTP_ENABLE_CHANGE_ASSOC_REQ;
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &av, sizeof(av)) < 0)
		die("SCTP_ENABLE_STREAM_RESET");
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof(on)) < 0)
		die("SCTP_RECVRCVINFO");
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.se_assoc_id = SCTP_FUTURE_ASSOC;
		ev.se_type = types[i];
		ev.se_on = 1;
		if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof(ev)) < 0)
			die("SCTP_EVENT");
	}
}

/*
 * Reads and logs one message or notification; returns its notification
 * type (0 for a message), -1 at the end of the association. A change
 * event's outbound count goes to *outbound.
 */
static int reconfig_read(struct socket *s, uint16_t *outbound)
{
	static char buf[1 << 16];
	struct sctp_rcvinfo rcv;
	unsigned int infotype;
	int flags;
	ssize_t n = recv_msg(s, buf, sizeof(buf), &rcv, &infotype, &flags);

	if (n <= 0)
		return -1;
	if (flags & MSG_NOTIFICATION) {
		const union sctp_notification *u = (const union sctp_notification *)buf;
		if (u->sn_header.sn_type == SCTP_STREAM_RESET_EVENT) {
			const struct sctp_stream_reset_event *e = &u->sn_strreset_event;
			size_t k, count = (e->strreset_length - sizeof(*e)) / sizeof(uint16_t);
			fprintf(stderr, "reset %u", (unsigned)e->strreset_flags);
			for (k = 0; k < count; k++)
				fprintf(stderr, " %u", (unsigned)e->strreset_stream_list[k]);
			fprintf(stderr, "\n");
		} else if (u->sn_header.sn_type == SCTP_STREAM_CHANGE_EVENT) {
			const struct sctp_stream_change_event *e = &u->sn_strchange_event;
			fprintf(stderr, "change %u %u %u\n", (unsigned)e->strchange_flags,
				(unsigned)e->strchange_instrms, (unsigned)e->strchange_outstrms);
			if (outbound != NULL)
				*outbound = e->strchange_outstrms;
		}
		return u->sn_header.sn_type;
	}
	if (infotype == SCTP_RECVV_RCVINFO && n >= 4) {
		uint32_t k;
		memcpy(&k, buf, 4);
		fprintf(stderr, "msg %u %u %u\n", (unsigned)rcv.rcv_sid, (unsigned)rcv.rcv_ssn,
			(unsigned)ntohl(k));
	}
	return 0;
}

static int run_reset_server(uint16_t udp, uint16_t port)
{
	struct socket *ls, *s;

	start(udp, 500);
	ls = new_socket(SOCK_STREAM);
	reconfig_socket(ls);
	bind_to(ls, "0.0.0.0", port);
	if (usrsctp_listen(ls, 1) < 0)
		die("listen");
	fprintf(stderr, "listening\n");
	s = usrsctp_accept(ls, NULL, NULL);
	if (s == NULL)
		die("accept");
	while (reconfig_read(s, NULL) >= 0)
		;
	fprintf(stderr, "ended\n");
	usrsctp_close(s);
	usrsctp_close(ls);
	finish();
	return 0;
}

static void send_indexed(struct socket *s, uint16_t sid, uint32_t index)
{
	char buf[100];
	uint32_t k = htonl(index);
	struct sctp_sndinfo snd;

	memset(buf, 0x5a, sizeof(buf));
	memcpy(buf, &k, 4);
	memset(&snd, 0, sizeof(snd));
	snd.snd_sid = sid;
	snd.snd_ppid = htonl(0x6d730004);
	if (usrsctp_sendv(s, buf, sizeof(buf), NULL, 0, &snd, sizeof(snd), SCTP_SENDV_SNDINFO, 0) < 0)
		die("sendv");
}

/* Reads until a notification of `type` (dies at the association's end). */
static void wait_for(struct socket *s, int type, uint16_t *outbound)
{
	int t;
	while ((t = reconfig_read(s, outbound)) != type)
		if (t < 0) {
			fprintf(stderr, "the association ended before event %d\n", type);
			exit(1);
		}
}

static int run_reset_client(uint16_t udp, uint16_t peer_udp, const char *peer, uint16_t port,
			    int count)
{
	struct socket *s;
	struct sctp_add_streams add;
	char rs_buf[sizeof(struct sctp_reset_streams) + sizeof(uint16_t)];
	struct sctp_reset_streams *rs = (struct sctp_reset_streams *)rs_buf;
	uint16_t outbound = 0;
	int i;

	start(udp, 500);
	s = client_socket(peer_udp);
	reconfig_socket(s);
	bind_to(s, "127.0.0.1", 0);
	connect_to(s, peer, port);
	fprintf(stderr, "connected\n");
	for (i = 0; i < count; i++)
		send_indexed(s, 1, (uint32_t)i);
	memset(rs_buf, 0, sizeof(rs_buf));
	rs->srs_assoc_id = SCTP_ALL_ASSOC;
	rs->srs_flags = SCTP_STREAM_RESET_OUTGOING;
	rs->srs_number_streams = 1;
	rs->srs_stream_list[0] = 1;
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RESET_STREAMS, rs, sizeof(rs_buf)) < 0)
		die("SCTP_RESET_STREAMS");
	wait_for(s, SCTP_STREAM_RESET_EVENT, NULL);
	for (i = 0; i < count; i++)
		send_indexed(s, 1, (uint32_t)(count + i));
	memset(&add, 0, sizeof(add));
	add.sas_outstrms = 2;
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_ADD_STREAMS, &add, sizeof(add)) < 0)
		die("SCTP_ADD_STREAMS");
	wait_for(s, SCTP_STREAM_CHANGE_EVENT, &outbound);
	if (outbound == 0) {
		fprintf(stderr, "no outbound streams after the change\n");
		exit(1);
	}
	send_indexed(s, (uint16_t)(outbound - 1), (uint32_t)(2 * count));
	if (usrsctp_shutdown(s, SHUT_WR) < 0)
		die("shutdown");
	while (reconfig_read(s, NULL) >= 0)
		;
	fprintf(stderr, "sent %d messages\n", 2 * count + 1);
	usrsctp_close(s);
	finish();
	return 0;
}

/* ---- captures ---- */

static int run_capture_server(void)
{
	struct socket *ls;
	static char buf[65536];
	int served;

	start(CAPTURE_SERVER_UDP, 200);
	ls = listener(SOCK_STREAM, "0.0.0.0", CAPTURE_SERVER_PORT, 1);
	for (served = 0; served < 3; served++) {
		struct socket *s = usrsctp_accept(ls, NULL, NULL);
		if (s == NULL)
			die("accept");
		for (;;) {
			struct sctp_rcvinfo rcv;
			unsigned int infotype;
			int flags;
			struct sctp_sndinfo snd;
			ssize_t n = recv_msg(s, buf, sizeof(buf), &rcv, &infotype, &flags);
			if (n <= 0)
				break;
			memset(&snd, 0, sizeof(snd));
			snd.snd_sid = (infotype == SCTP_RECVV_RCVINFO) ? rcv.rcv_sid : 0;
			snd.snd_ppid = (infotype == SCTP_RECVV_RCVINFO) ? rcv.rcv_ppid : 0;
			if (usrsctp_sendv(s, buf, (size_t)n, NULL, 0, &snd, sizeof(snd), SCTP_SENDV_SNDINFO, 0) < 0)
				break;
		}
		usrsctp_close(s);
	}
	usrsctp_close(ls);
	sleep(1);
	finish();
	return 0;
}

static struct socket *capture_connect(uint16_t local_port)
{
	struct socket *s = client_socket(CAPTURE_SERVER_UDP);
	const int on = 1;
	struct sctp_assoc_value seg;

	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof(on)) < 0)
		die("SCTP_NODELAY");
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof(on)) < 0)
		die("SCTP_RECVRCVINFO");
	/* Small fragments, so that one message becomes B, middle, E chunks. */
	memset(&seg, 0, sizeof(seg));
	seg.assoc_value = 600;
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_MAXSEG, &seg, sizeof(seg)) < 0)
		die("SCTP_MAXSEG");
	/* Bound to one address (not all), so that bindx sends ASCONF. */
	bind_to(s, "127.0.0.1", local_port);
	connect_to(s, "127.0.0.1", CAPTURE_SERVER_PORT);
	return s;
}

/* Sends one message and waits for its echo. */
static void exchange(struct socket *s, size_t len, uint16_t sid, uint16_t flags)
{
	static char out[4096], in[65536];
	struct sctp_sndinfo snd;
	size_t i, got = 0;

	for (i = 0; i < len; i++)
		out[i] = (char)('a' + i % 26);
	memset(&snd, 0, sizeof(snd));
	snd.snd_sid = sid;
	snd.snd_flags = flags;
	snd.snd_ppid = htonl(51);
	if (usrsctp_sendv(s, out, len, NULL, 0, &snd, sizeof(snd), SCTP_SENDV_SNDINFO, 0) < 0)
		die("sendv");
	while (got < len) {
		struct sctp_rcvinfo rcv;
		unsigned int infotype;
		int mflags;
		ssize_t n = recv_msg(s, in, sizeof(in), &rcv, &infotype, &mflags);
		if (n <= 0)
			die("recvv");
		got += (size_t)n;
	}
}

static int run_capture_client(void)
{
	struct socket *s;

	start(CAPTURE_CLIENT_UDP, 200);

	/* Association 1. */
	s = capture_connect(5002);
	exchange(s, 5, 0, 0);
	exchange(s, 100, 1, SCTP_UNORDERED);
	exchange(s, 31, 1, SCTP_SACK_IMMEDIATELY);
	exchange(s, 1500, 0, 0);
	bindx(s, "127.0.0.2", SCTP_BINDX_ADD_ADDR, 0, 500);
	set_peer_primary(s, "127.0.0.2", 0, 500);
	exchange(s, 7, 0, 0);
	bindx(s, "127.0.0.2", SCTP_BINDX_REM_ADDR, 0, 500);
	/* Idle: heartbeats (interval 200 ms plus jitter). */
	sleep(2);
	if (usrsctp_shutdown(s, SHUT_WR) < 0)
		perror("shutdown");
	sleep(1);
	usrsctp_close(s);

	/* Association 2: a refused Delete-IP. */
	s = capture_connect(5003);
	exchange(s, 12, 0, 0);
	bindx(s, "127.0.0.2", SCTP_BINDX_ADD_ADDR, 0, 500);
	bindx(s, "127.0.0.1", SCTP_BINDX_REM_ADDR, 0, 500);
	sleep(1);
	abort_close(s);

	/* Association 3, aborted. */
	s = capture_connect(5004);
	exchange(s, 12, 0, 0);
	abort_close(s);
	sleep(1);
	finish();
	return 0;
}

/* ---- the server benchmark ---- */

static long bench_up, bench_now;
static pthread_mutex_t bench_lock = PTHREAD_MUTEX_INITIALIZER;

/* Answers "count" on stdin; ends the process at the end of stdin. */
static void *bench_control(void *arg)
{
	char line[64];
	(void)arg;
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (strncmp(line, "count", 5) != 0)
			continue;
		pthread_mutex_lock(&bench_lock);
		printf("associations %ld %ld\n", bench_up, bench_now);
		pthread_mutex_unlock(&bench_lock);
		fflush(stdout);
	}
	_exit(0);
	return NULL;
}

static void bench_notification(const union sctp_notification *n)
{
	if (n->sn_header.sn_type != SCTP_ASSOC_CHANGE)
		return;
	pthread_mutex_lock(&bench_lock);
	switch (n->sn_assoc_change.sac_state) {
	case SCTP_COMM_UP:
		bench_up++;
		bench_now++;
		break;
	case SCTP_COMM_LOST:
	case SCTP_SHUTDOWN_COMP:
		bench_now--;
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&bench_lock);
}

static int run_bench_server(uint16_t udp, uint16_t port, const char *ip)
{
	struct socket *ls;
	struct sctp_event ev;
	pthread_t control;
	static char buf[1 << 16];

	start(udp, 0);
	ls = new_socket(SOCK_SEQPACKET);
	memset(&ev, 0, sizeof(ev));
	ev.se_assoc_id = SCTP_ALL_ASSOC;
	ev.se_type = SCTP_ASSOC_CHANGE;
	ev.se_on = 1;
	if (usrsctp_setsockopt(ls, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof(ev)) < 0)
		die("SCTP_EVENT");
	bind_to(ls, ip, port);
	if (usrsctp_listen(ls, 1) < 0)
		die("listen");
	if (pthread_create(&control, NULL, bench_control, NULL) != 0)
		die("pthread_create");
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		struct sctp_rcvinfo rcv;
		unsigned int infotype;
		int flags;
		ssize_t n = recv_msg(ls, buf, sizeof(buf), &rcv, &infotype, &flags);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			die("recvv");
		if (n > 0 && (flags & MSG_NOTIFICATION))
			bench_notification((const union sctp_notification *)buf);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "server") == 0)
		return run_server((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]), argv[4]);
	if ((argc == 7 || argc == 8) && strcmp(argv[1], "client") == 0)
		return run_client((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]), argv[4],
				  (uint16_t)atoi(argv[5]), argv[6], argc == 8 && strcmp(argv[7], "asconf") == 0);
	if ((argc == 7 || argc == 8) && strcmp(argv[1], "pr-client") == 0)
		return run_pr_client((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]), argv[4],
				     (uint16_t)atoi(argv[5]), atoi(argv[6]),
				     argc == 8 ? (size_t)atoi(argv[7]) : 1000);
	if (argc == 4 && strcmp(argv[1], "reset-server") == 0)
		return run_reset_server((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]));
	if (argc == 7 && strcmp(argv[1], "reset-client") == 0)
		return run_reset_client((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]), argv[4],
					(uint16_t)atoi(argv[5]), atoi(argv[6]));
	if (argc == 2 && strcmp(argv[1], "capture-server") == 0)
		return run_capture_server();
	if (argc == 2 && strcmp(argv[1], "capture-client") == 0)
		return run_capture_client();
	if (argc == 5 && strcmp(argv[1], "bench-server") == 0)
		return run_bench_server((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]), argv[4]);
	fprintf(stderr,
		"usage: %s server UDP_PORT SCTP_PORT OUT_FILE\n"
		"       %s client UDP_PORT PEER_UDP_PORT PEER_ADDR SCTP_PORT IN_FILE [asconf]\n"
		"       %s pr-client UDP_PORT PEER_UDP_PORT PEER_ADDR SCTP_PORT COUNT [SIZE]\n"
		"       %s reset-server UDP_PORT SCTP_PORT\n"
		"       %s reset-client UDP_PORT PEER_UDP_PORT PEER_ADDR SCTP_PORT COUNT\n"
		"       %s capture-server | capture-client\n"
		"       %s bench-server UDP_PORT SCTP_PORT ADDR\n",
		argv[0], argv[0], argv[0], argv[0], argv[0], argv[0], argv[0]);
	return 2;
}
