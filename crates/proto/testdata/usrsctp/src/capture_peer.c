/*
 * capture_peer: a small usrsctp program that drives one scripted exchange
 * so that scripts/capture-usrsctp.sh can record real SCTP packets (over UDP
 * encapsulation, RFC 6951) as test data for the msctp wire codec.
 *
 *   capture_peer server        UDP port 9899, SCTP port 5001, echoes
 *                              every message, serves three associations.
 *   capture_peer client        UDP port 9900 -> 9899, from 127.0.0.1:
 *     association 1 (SCTP port 5002): handshake; DATA (odd size, unordered,
 *       I bit, fragmented); ASCONF Add-IP 127.0.0.2; ASCONF Set-Primary
 *       127.0.0.2; ASCONF Delete-IP 127.0.0.2; heartbeats on idle paths;
 *       graceful shutdown.
 *     association 2 (SCTP port 5003): handshake, one DATA, ASCONF Add-IP
 *       127.0.0.2, then ASCONF Delete-IP 127.0.0.1, the packets' own source
 *       address, which the server refuses (Error Cause Indication, Delete
 *       Source Address); its ASCONF-ACK then reaches an address the client
 *       no longer owns, and the client answers it with an ABORT (T bit).
 *     association 3 (SCTP port 5004): handshake, one DATA, ABORT (linger 0).
 *
 * Both run inside one network namespace whose loopback holds 127.0.0.1 and
 * 127.0.0.2. Built by scripts/capture-usrsctp.sh, not by cargo.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <usrsctp.h>

#define SERVER_UDP 9899
#define CLIENT_UDP 9900
#define SERVER_PORT 5001

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
	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1)
		die("inet_pton");
	return a;
}

static int run_server(void)
{
	struct socket *ls;
	struct sockaddr_in any;
	char buf[65536];
	int served;

	usrsctp_init(SERVER_UDP, NULL, NULL);
	usrsctp_sysctl_set_sctp_heartbeat_interval_default(200);
	ls = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (ls == NULL)
		die("usrsctp_socket");
	any = addr4("0.0.0.0", SERVER_PORT);
	if (usrsctp_bind(ls, (struct sockaddr *)&any, sizeof(any)) < 0)
		die("bind");
	if (usrsctp_listen(ls, 1) < 0)
		die("listen");
	for (served = 0; served < 3; served++) {
		struct socket *s = usrsctp_accept(ls, NULL, NULL);
		if (s == NULL)
			die("accept");
		for (;;) {
			struct sctp_rcvinfo rcv;
			socklen_t infolen = sizeof(rcv);
			unsigned int infotype = 0;
			int flags = 0;
			struct sctp_sndinfo snd;
			ssize_t n = usrsctp_recvv(s, buf, sizeof(buf), NULL, NULL, &rcv, &infolen, &infotype, &flags);
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
	while (usrsctp_finish() != 0)
		sleep(1);
	return 0;
}

static struct socket *connect_from(uint16_t local_port)
{
	struct socket *s;
	struct sockaddr_in local = addr4("127.0.0.1", local_port);
	struct sockaddr_in remote = addr4("127.0.0.1", SERVER_PORT);
	struct sctp_udpencaps enc;
	const int on = 1;
	const int recv_info = 1;
	struct sctp_assoc_value seg;

	s = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (s == NULL)
		die("usrsctp_socket");
	memset(&enc, 0, sizeof(enc));
	enc.sue_address.ss_family = AF_INET;
	enc.sue_port = htons(SERVER_UDP);
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &enc, sizeof(enc)) < 0)
		die("SCTP_REMOTE_UDP_ENCAPS_PORT");
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof(on)) < 0)
		die("SCTP_NODELAY");
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &recv_info, sizeof(recv_info)) < 0)
		die("SCTP_RECVRCVINFO");
	/* Small fragments, so that one message becomes B, middle, E chunks. */
	memset(&seg, 0, sizeof(seg));
	seg.assoc_value = 600;
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_MAXSEG, &seg, sizeof(seg)) < 0)
		die("SCTP_MAXSEG");
	/* Bound to one address (not all), so that bindx sends ASCONF. */
	if (usrsctp_bind(s, (struct sockaddr *)&local, sizeof(local)) < 0)
		die("bind");
	if (usrsctp_connect(s, (struct sockaddr *)&remote, sizeof(remote)) < 0)
		die("connect");
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
		socklen_t infolen = sizeof(rcv);
		unsigned int infotype = 0;
		int mflags = 0;
		ssize_t n = usrsctp_recvv(s, in, sizeof(in), NULL, NULL, &rcv, &infolen, &infotype, &mflags);
		if (n <= 0)
			die("recvv");
		got += (size_t)n;
	}
}

static void bindx(struct socket *s, const char *ip, int flags, const char *what)
{
	struct sockaddr_in a = addr4(ip, 0);
	if (usrsctp_bindx(s, (struct sockaddr *)&a, 1, flags) < 0)
		perror(what);
	usleep(500 * 1000);
}

static void set_peer_primary(struct socket *s, const char *ip)
{
	struct sctp_setpeerprim prim;
	struct sockaddr_in a = addr4(ip, 0);

	memset(&prim, 0, sizeof(prim));
	memcpy(&prim.sspp_addr, &a, sizeof(a));
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_SET_PEER_PRIMARY_ADDR, &prim, sizeof(prim)) < 0)
		perror("SCTP_SET_PEER_PRIMARY_ADDR");
	usleep(500 * 1000);
}

static int run_client(void)
{
	struct socket *s;
	struct linger lg;

	usrsctp_init(CLIENT_UDP, NULL, NULL);
	usrsctp_sysctl_set_sctp_heartbeat_interval_default(200);

	/* Association 1. */
	s = connect_from(5002);
	exchange(s, 5, 0, 0);
	exchange(s, 100, 1, SCTP_UNORDERED);
	exchange(s, 31, 1, SCTP_SACK_IMMEDIATELY);
	exchange(s, 1500, 0, 0);
	bindx(s, "127.0.0.2", SCTP_BINDX_ADD_ADDR, "bindx add");
	set_peer_primary(s, "127.0.0.2");
	exchange(s, 7, 0, 0);
	bindx(s, "127.0.0.2", SCTP_BINDX_REM_ADDR, "bindx remove");
	/* Idle: heartbeats (interval 200 ms plus jitter). */
	sleep(2);
	if (usrsctp_shutdown(s, SHUT_WR) < 0)
		perror("shutdown");
	sleep(1);
	usrsctp_close(s);

	/* Association 2: a refused Delete-IP. */
	s = connect_from(5003);
	exchange(s, 12, 0, 0);
	bindx(s, "127.0.0.2", SCTP_BINDX_ADD_ADDR, "bindx add");
	bindx(s, "127.0.0.1", SCTP_BINDX_REM_ADDR, "bindx remove");
	sleep(1);
	lg.l_onoff = 1;
	lg.l_linger = 0;
	if (usrsctp_setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0)
		perror("SO_LINGER");
	usrsctp_close(s);

	/* Association 3, aborted. */
	s = connect_from(5004);
	exchange(s, 12, 0, 0);
	lg.l_onoff = 1;
	lg.l_linger = 0;
	if (usrsctp_setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0)
		perror("SO_LINGER");
	usrsctp_close(s);
	sleep(1);
	while (usrsctp_finish() != 0)
		sleep(1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "server") == 0)
		return run_server();
	if (argc == 2 && strcmp(argv[1], "client") == 0)
		return run_client();
	fprintf(stderr, "usage: %s server|client\n", argv[0]);
	return 2;
}
