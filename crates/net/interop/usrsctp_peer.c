/*
 * usrsctp_peer: the usrsctp side of msctp's interoperability tests
 * (crates/net/tests/usrsctp_interop.rs). SCTP over UDP (RFC 6951) only:
 * the test runs it with CAP_NET_RAW dropped, so usrsctp cannot open raw
 * SCTP sockets.
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
 * usrsctp defaults apply otherwise (ADD-IP, AUTH with HMAC-SHA1,
 * auto-ASCONF on; see scripts/install-deps.sh). Built by the test with
 * gcc -O2 usrsctp_peer.c $(pkg-config --cflags --libs usrsctp) -lpthread.
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

#define MSG 16384

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

static void finish(void)
{
	int i;
	for (i = 0; i < 30 && usrsctp_finish() != 0; i++)
		sleep(1);
}

static int run_server(uint16_t udp, uint16_t port, const char *out)
{
	struct socket *ls, *s;
	struct sockaddr_in any = addr4("0.0.0.0", port);
	static char buf[1 << 16];
	FILE *f = fopen(out, "wb");
	long long total = 0;

	if (f == NULL)
		die("fopen");
	usrsctp_init(udp, NULL, NULL);
	usrsctp_sysctl_set_sctp_heartbeat_interval_default(500);
	ls = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (ls == NULL)
		die("usrsctp_socket");
	if (usrsctp_bind(ls, (struct sockaddr *)&any, sizeof(any)) < 0)
		die("bind");
	if (usrsctp_listen(ls, 1) < 0)
		die("listen");
	fprintf(stderr, "listening\n");
	s = usrsctp_accept(ls, NULL, NULL);
	if (s == NULL)
		die("accept");
	for (;;) {
		struct sockaddr_in from;
		socklen_t fromlen = sizeof(from);
		struct sctp_rcvinfo rcv;
		socklen_t infolen = sizeof(rcv);
		unsigned int infotype = 0;
		int flags = 0;
		ssize_t n = usrsctp_recvv(s, buf, sizeof(buf), (struct sockaddr *)&from, &fromlen, &rcv,
					  &infolen, &infotype, &flags);
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
	struct sockaddr_in local = addr4("127.0.0.1", 0);
	struct sockaddr_in remote = addr4(peer, port);
	struct sctp_udpencaps enc;
	FILE *f = fopen(in, "rb");
	long size;

	if (f == NULL)
		die("fopen");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	usrsctp_init(udp, NULL, NULL);
	usrsctp_sysctl_set_sctp_heartbeat_interval_default(500);
	s = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (s == NULL)
		die("usrsctp_socket");
	memset(&enc, 0, sizeof(enc));
	enc.sue_address.ss_family = AF_INET;
	enc.sue_port = htons(peer_udp);
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &enc, sizeof(enc)) < 0)
		die("SCTP_REMOTE_UDP_ENCAPS_PORT");
	/* Bound to one address, so that bindx sends ASCONF. */
	if (usrsctp_bind(s, (struct sockaddr *)&local, sizeof(local)) < 0)
		die("bind");
	if (usrsctp_connect(s, (struct sockaddr *)&remote, sizeof(remote)) < 0)
		die("connect");
	fprintf(stderr, "connected\n");
	if (asconf) {
		struct sockaddr_in extra = addr4("127.0.0.2", 0);
		struct sctp_setpeerprim prim;

		send_all(s, f, size / 2);
		if (usrsctp_bindx(s, (struct sockaddr *)&extra, 1, SCTP_BINDX_ADD_ADDR) < 0)
			die("bindx add");
		usleep(300 * 1000);
		memset(&prim, 0, sizeof(prim));
		memcpy(&prim.sspp_addr, &extra, sizeof(extra));
		if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_SET_PEER_PRIMARY_ADDR, &prim, sizeof(prim)) < 0)
			die("SCTP_SET_PEER_PRIMARY_ADDR");
		usleep(300 * 1000);
		fprintf(stderr, "asconf done\n");
	}
	send_all(s, f, -1);
	fclose(f);
	if (usrsctp_shutdown(s, SHUT_WR) < 0)
		die("shutdown");
	/* Wait for the SHUTDOWN exchange (the read returns 0 when done). */
	{
		static char buf[4096];
		for (;;) {
			struct sockaddr_in from;
			socklen_t fromlen = sizeof(from);
			struct sctp_rcvinfo rcv;
			socklen_t infolen = sizeof(rcv);
			unsigned int infotype = 0;
			int flags = 0;
			ssize_t n = usrsctp_recvv(s, buf, sizeof(buf), (struct sockaddr *)&from, &fromlen,
						  &rcv, &infolen, &infotype, &flags);
			if (n <= 0)
				break;
		}
	}
	fprintf(stderr, "sent %ld bytes\n", size);
	usrsctp_close(s);
	finish();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "server") == 0)
		return run_server((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]), argv[4]);
	if ((argc == 7 || argc == 8) && strcmp(argv[1], "client") == 0)
		return run_client((uint16_t)atoi(argv[2]), (uint16_t)atoi(argv[3]), argv[4],
				  (uint16_t)atoi(argv[5]), argv[6], argc == 8 && strcmp(argv[7], "asconf") == 0);
	fprintf(stderr,
		"usage: %s server UDP_PORT SCTP_PORT OUT_FILE\n"
		"       %s client UDP_PORT PEER_UDP_PORT PEER_ADDR SCTP_PORT IN_FILE [asconf]\n",
		argv[0], argv[0]);
	return 2;
}
