// Reference TCP NewReno bulk transfer in ns-3 (3.37) for the msctp TCP model.
//
// Topology: a chain of point-to-point links from the sender (node 0) to the
// receiver (last node), given as --links=RATE:DELAY:QUEUE[,RATE:DELAY:QUEUE...]
// (QUEUE in packets, drop-tail, in the device of each link end; the traffic
// control layer's default queue disc is removed so the device queue is the only
// queue). A BulkSendApplication on node 0 sends to a PacketSink on the last
// node from t = 0 until --time seconds; optional random packet loss
// (RateErrorModel, unit packet) on the receiver's device of the last link, so
// only the data direction loses packets.
//
// Prints one JSON line: goodput at the sink, packets, retransmission timeouts,
// fast retransmits (both counted exactly by a TcpNewReno subclass that sees
// the congestion-state and CA_EVENT_LOSS callbacks of ns-3's TCP), ns-3
// events executed, wall time, the process's CPU time (user + system) and
// peak resident set (kB).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
uint64_t g_fastRetransmits = 0;
uint64_t g_rtos = 0;
uint64_t g_dataPacketsAtReceiver = 0;
uint64_t g_errorDrops = 0;
uint64_t g_queueDrops = 0;
uint64_t g_dataSegmentsSent = 0;
uint64_t g_retransmittedSegments = 0;
SequenceNumber32 g_highestSent(0);
bool g_anySent = false;
std::ofstream g_cwndTrace;
} // namespace

// TcpNewReno that counts what ns-3's TCP socket tells its congestion
// control: every entry into CA_RECOVERY is one fast retransmit, every
// CA_EVENT_LOSS is one retransmission timeout (TcpSocketBase::ReTxTimeout).
class CountingNewReno : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CountingNewReno")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<CountingNewReno>();
        return tid;
    }

    CountingNewReno() = default;

    CountingNewReno(const CountingNewReno& other)
        : TcpNewReno(other)
    {
    }

    std::string GetName() const override
    {
        return "CountingNewReno";
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        if (newState == TcpSocketState::CA_RECOVERY)
        {
            ++g_fastRetransmits;
        }
        TcpNewReno::CongestionStateSet(tcb, newState);
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        if (event == TcpSocketState::CA_EVENT_LOSS)
        {
            ++g_rtos;
        }
        TcpNewReno::CwndEvent(tcb, event);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<CountingNewReno>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(CountingNewReno);

struct Hop
{
    std::string rate;
    std::string delay;
    uint32_t queue;
};

// Trace sources are looked up by name at run time: a typo must not silently
// leave a counter at zero.
static void
Check(bool connected, const char* what)
{
    if (!connected)
    {
        NS_FATAL_ERROR("could not connect trace source " << what);
    }
}

static std::vector<Hop>
ParseLinks(const std::string& spec)
{
    std::vector<Hop> hops;
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        std::stringstream is(item);
        std::string rate;
        std::string delay;
        std::string queue;
        if (!std::getline(is, rate, ':') || !std::getline(is, delay, ':') ||
            !std::getline(is, queue, ':'))
        {
            NS_FATAL_ERROR("bad --links element '" << item << "', want RATE:DELAY:QUEUE");
        }
        hops.push_back(Hop{rate, delay, static_cast<uint32_t>(std::stoul(queue))});
    }
    if (hops.empty())
    {
        NS_FATAL_ERROR("--links is empty");
    }
    return hops;
}

static void
OnSenderTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    ++g_dataSegmentsSent;
    SequenceNumber32 end = h.GetSequenceNumber() + SequenceNumber32(p->GetSize());
    if (g_anySent && h.GetSequenceNumber() < g_highestSent)
    {
        ++g_retransmittedSegments;
    }
    if (!g_anySent || end > g_highestSent)
    {
        g_highestSent = end;
        g_anySent = true;
    }
}

static void
OnCwnd(uint32_t, uint32_t cwnd)
{
    g_cwndTrace << Simulator::Now().GetSeconds() << " " << cwnd << "\n";
}

static void
HookSenderSocket(Ptr<BulkSendApplication> app, bool traceCwnd)
{
    Ptr<Socket> s = app->GetSocket();
    Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(s);
    if (!tcp)
    {
        NS_FATAL_ERROR("sender socket is not a TcpSocketBase");
    }
    Check(tcp->TraceConnectWithoutContext("Tx", MakeCallback(&OnSenderTx)), "Tx");
    if (traceCwnd)
    {
        Check(tcp->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnCwnd)),
              "CongestionWindow");
    }
}

static void
OnReceiverMacRx(Ptr<const Packet> p)
{
    // IP (20) + TCP (20..60) headers only: an ACK or a handshake segment.
    if (p->GetSize() > 100)
    {
        ++g_dataPacketsAtReceiver;
    }
}

static void
OnErrorDrop(Ptr<const Packet>)
{
    ++g_errorDrops;
}

static void
OnQueueDrop(Ptr<const Packet>)
{
    ++g_queueDrops;
}

int
main(int argc, char* argv[])
{
    std::string links = "2Mbps:25ms:20";
    double simTime = 60.0;
    uint32_t segment = 1448;
    uint32_t initialCwnd = 10;
    double minRto = 1.0;
    double connTimeout = 3.0;
    bool sack = false;
    bool timestamps = false;
    bool windowScaling = true;
    bool limitedTransmit = true;
    std::string recovery = "classic";
    uint32_t delAckCount = 2;
    double delAckTimeout = 0.2;
    uint32_t sndBuf = 131072;
    uint32_t rcvBuf = 131072;
    double loss = 0.0;
    uint32_t run = 1;
    std::string cwndTrace;
    std::string name = "custom";

    CommandLine cmd(__FILE__);
    cmd.AddValue("name", "scenario name echoed in the output", name);
    cmd.AddValue("links", "hops sender->receiver: RATE:DELAY:QUEUE_PACKETS[,...]", links);
    cmd.AddValue("time", "simulated seconds of bulk transfer", simTime);
    cmd.AddValue("segment", "TCP segment size (bytes)", segment);
    cmd.AddValue("iw", "initial congestion window (segments)", initialCwnd);
    cmd.AddValue("minRto", "minimum RTO (s)", minRto);
    cmd.AddValue("connTimeout", "SYN retransmission timeout (s)", connTimeout);
    cmd.AddValue("sack", "enable SACK", sack);
    cmd.AddValue("timestamps", "enable the timestamp option", timestamps);
    cmd.AddValue("windowScaling", "enable window scaling", windowScaling);
    cmd.AddValue("limitedTransmit", "enable limited transmit (RFC 3042)", limitedTransmit);
    cmd.AddValue("recovery", "loss recovery: classic (NewReno) or prr (ns-3 default)", recovery);
    cmd.AddValue("delAckCount", "segments per delayed ACK", delAckCount);
    cmd.AddValue("delAckTimeout", "delayed ACK timeout (s)", delAckTimeout);
    cmd.AddValue("sndBuf", "send buffer (bytes)", sndBuf);
    cmd.AddValue("rcvBuf", "receive buffer (bytes)", rcvBuf);
    cmd.AddValue("loss", "packet error rate on the receiver's last link (data direction)", loss);
    cmd.AddValue("run", "RNG run number", run);
    cmd.AddValue("cwndTrace", "file for 'time cwnd' lines of the sender", cwndTrace);
    cmd.Parse(argc, argv);

    auto wallStart = std::chrono::steady_clock::now();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(CountingNewReno::GetTypeId()));
    if (recovery == "classic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpClassicRecovery::GetTypeId()));
    }
    else if (recovery == "prr")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpPrrRecovery::GetTypeId()));
    }
    else
    {
        NS_FATAL_ERROR("--recovery must be classic or prr");
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(connTimeout)));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(delAckTimeout)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(windowScaling));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));

    std::vector<Hop> hops = ParseLinks(links);
    NodeContainer nodes;
    nodes.Create(hops.size() + 1);
    InternetStackHelper stack;
    stack.Install(nodes);

    Ipv4AddressHelper address;
    std::vector<NetDeviceContainer> devices;
    std::vector<Ipv4InterfaceContainer> interfaces;
    for (size_t i = 0; i < hops.size(); ++i)
    {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue(hops[i].rate));
        p2p.SetChannelAttribute("Delay", StringValue(hops[i].delay));
        p2p.SetQueue("ns3::DropTailQueue",
                     "MaxSize",
                     QueueSizeValue(QueueSize(std::to_string(hops[i].queue) + "p")));
        NetDeviceContainer d = p2p.Install(nodes.Get(i), nodes.Get(i + 1));
        std::ostringstream base;
        base << "10.1." << (i + 1) << ".0";
        address.SetBase(base.str().c_str(), "255.255.255.0");
        interfaces.push_back(address.Assign(d));
        // Ipv4AddressHelper::Assign installed the default queue disc; remove
        // it so the device's drop-tail queue is the only queue on the path.
        TrafficControlHelper tch;
        tch.Uninstall(d);
        for (uint32_t k = 0; k < d.GetN(); ++k)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(d.Get(k));
            Check(dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnQueueDrop)),
                  "Queue Drop");
        }
        devices.push_back(d);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    // Without a queue disc, a packet meeting a full (stopped) device queue is
    // dropped by the traffic control layer: count those drops too.
    for (uint32_t n = 0; n < nodes.GetN(); ++n)
    {
        Check(nodes.Get(n)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                  "TcDrop",
                  MakeCallback(&OnQueueDrop)),
              "TcDrop");
    }

    Ptr<NetDevice> rxDev = devices.back().Get(1);
    Check(rxDev->TraceConnectWithoutContext("MacRx", MakeCallback(&OnReceiverMacRx)), "MacRx");
    if (loss > 0.0)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorRate", DoubleValue(loss));
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        rxDev->SetAttribute("ReceiveErrorModel", PointerValue(em));
        Check(rxDev->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&OnErrorDrop)),
              "PhyRxDrop");
    }

    uint16_t port = 5000;
    Ipv4Address sinkAddr = interfaces.back().GetAddress(1);
    BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(sinkAddr, port));
    source.SetAttribute("MaxBytes", UintegerValue(0));
    source.SetAttribute("SendSize", UintegerValue(segment));
    ApplicationContainer sourceApps = source.Install(nodes.Get(0));
    sourceApps.Start(Seconds(0.0));
    sourceApps.Stop(Seconds(simTime));

    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApps = sink.Install(nodes.Get(hops.size()));
    sinkApps.Start(Seconds(0.0));
    sinkApps.Stop(Seconds(simTime));

    if (!cwndTrace.empty())
    {
        g_cwndTrace.open(cwndTrace);
    }
    Ptr<BulkSendApplication> bulk = DynamicCast<BulkSendApplication>(sourceApps.Get(0));
    // The socket exists once the application has started (t = 0).
    Simulator::Schedule(NanoSeconds(1), &HookSenderSocket, bulk, !cwndTrace.empty());

    Simulator::Stop(Seconds(simTime));
    Simulator::Run();
    uint64_t events = Simulator::GetEventCount();

    Ptr<PacketSink> ps = DynamicCast<PacketSink>(sinkApps.Get(0));
    uint64_t rxBytes = ps->GetTotalRx();
    Simulator::Destroy();
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    // Peak resident set of this process (kB on Linux), for the speed
    // comparison with the msctp simulator.
    struct rusage usage;
    bool haveUsage = getrusage(RUSAGE_SELF, &usage) == 0;
    long maxRssKb = haveUsage ? usage.ru_maxrss : -1;
    double cpu = haveUsage ? usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 +
                                 usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6
                           : -1.0;

    std::printf("{\"name\":\"%s\",\"ns3\":\"3.37\",\"links\":\"%s\",\"time_s\":%g,\"segment\":%u,"
                "\"iw\":%u,\"min_rto_s\":%g,\"sack\":%s,\"timestamps\":%s,\"recovery\":\"%s\","
                "\"loss\":%g,\"run\":%u,"
                "\"throughput_bps\":%.1f,\"rx_bytes\":%llu,\"segments_delivered\":%llu,"
                "\"data_packets_at_receiver\":%llu,\"data_segments_sent\":%llu,"
                "\"retransmitted_segments\":%llu,\"rtos\":%llu,\"fast_retransmits\":%llu,"
                "\"queue_drops\":%llu,\"error_drops\":%llu,\"events\":%llu,\"wall_s\":%.3f,"
                "\"max_rss_kb\":%ld,\"cpu_s\":%.3f}\n",
                name.c_str(),
                links.c_str(),
                simTime,
                segment,
                initialCwnd,
                minRto,
                sack ? "true" : "false",
                timestamps ? "true" : "false",
                recovery.c_str(),
                loss,
                run,
                rxBytes * 8.0 / simTime,
                static_cast<unsigned long long>(rxBytes),
                static_cast<unsigned long long>((rxBytes + segment - 1) / segment),
                static_cast<unsigned long long>(g_dataPacketsAtReceiver),
                static_cast<unsigned long long>(g_dataSegmentsSent),
                static_cast<unsigned long long>(g_retransmittedSegments),
                static_cast<unsigned long long>(g_rtos),
                static_cast<unsigned long long>(g_fastRetransmits),
                static_cast<unsigned long long>(g_queueDrops),
                static_cast<unsigned long long>(g_errorDrops),
                static_cast<unsigned long long>(events),
                wall,
                maxRssKb,
                cpu);
    return 0;
}
