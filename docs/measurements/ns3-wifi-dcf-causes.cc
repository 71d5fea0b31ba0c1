// Why ns-3's 802.11b DCF saturation throughput is above Bianchi's (issue
// 33): ns3-wifi-saturation.cc's cell, with what ns-3 actually does traced.
//
// The same cell as ns3-wifi-saturation.cc (ad hoc, DSSS 11 Mbit/s data,
// 1 Mbit/s RTS, n stations with 1500-byte IP packets for one receiver,
// counted from 1 s), plus:
//   --layout=grid  the stations 1..10 m from the receiver (as before);
//   --layout=ring  every station --radius metres from it (equal power at
//                  the receiver: two colliding frames have an SINR of 0 dB);
//   --layout=point every station at one point --radius metres away (the
//                  same, and every station hears every other at the same
//                  power too: none decodes one of two colliding frames);
//   --ack1=1       every ACK at DSSS 1 Mbit/s (see below);
//   --staticarp=1  every node's ARP cache filled before the start
//                  (NeighborCacheHelper): no ARP exchange, whose broadcast
//                  requests collide unacknowledged when many stations
//                  start at once and leave stations without traffic.
// It prints the timing ns-3 uses (from its objects), the frames' modes,
// preambles, sizes and durations as transmitted, and counts, from the
// PHY's own traces, the data (or RTS) attempts, those that overlapped
// another transmission (collisions), and those of them the receiver
// decoded anyway (capture), the MAC's failure counts, the stations heard,
// and how often a sender's queue was empty.
//
// ACK rate: a station answers at the highest rate of its basic rate set
// not above the data frame's (WifiRemoteStationManager::GetControlAnswerMode).
// An ad hoc MAC puts every mandatory mode in that set on first contact
// (AddAllSupportedModes), and ns-3 3.37 marks all four DSSS/HR-DSSS modes
// mandatory, so an 11 Mbit/s frame is acknowledged at 11 Mbit/s;
// AddBasicMode(1 Mbit/s) cannot remove the others. --ack1 therefore
// interposes WifiRemoteStationManager::GetAckTxVector (exported from
// libns3-wifi and called through its PLT by the frame exchange and
// acknowledgement managers, so both the ACK's sender and the ACK timeout
// use it): link with -rdynamic. The printed ACK mode shows it took effect.
//
// Build and run (see ns3-wifi-dcf.md):
//   g++ -O1 -std=c++17 -rdynamic ns3-wifi-dcf-causes.cc -o dcf_causes $LIBS -ldl
//   ./dcf_causes --n=5 --layout=ring --ack1=1 --time=21
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dlfcn.h>
#include <map>
#include <set>
#include <vector>

using namespace ns3;

static bool g_ack1 = false;

namespace ns3 {
// The interposed ACK TXVECTOR: ns-3's own, with the mode set to DSSS
// 1 Mbit/s when --ack1 is given.
WifiTxVector WifiRemoteStationManager::GetAckTxVector(Mac48Address to,
                                                      const WifiTxVector &data) const {
  using Orig = WifiTxVector (*)(const WifiRemoteStationManager *, Mac48Address,
                                const WifiTxVector &);
  static Orig orig = reinterpret_cast<Orig>(dlsym(
      RTLD_NEXT,
      "_ZNK3ns324WifiRemoteStationManager14GetAckTxVectorENS_12Mac48AddressERKNS_12WifiTxVectorE"));
  if (!orig) {
    std::fprintf(stderr, "GetAckTxVector not found in libns3-wifi\n");
    std::abort();
  }
  WifiTxVector v = orig(this, to, data);
  if (g_ack1) v.SetMode(WifiMode("DsssRate1Mbps"));
  return v;
}
} // namespace ns3

struct Tx {
  uint32_t node;
  Time start, end;
  char kind; // 'D' data, 'A' ack, 'R' rts, 'C' cts, 'O' other
  bool decoded = false;
};

static std::vector<Tx> g_tx;
static std::map<Mac48Address, uint32_t> g_nodeOf;
static std::map<uint32_t, size_t> g_lastTx; // node -> index in g_tx
static std::map<std::string, uint64_t> g_count;
static std::map<uint32_t, uint64_t> g_rxPerNode;
static std::set<std::string> g_seen;
static uint64_t g_rx = 0;
static double g_from = 1.0;
static uint32_t g_apNode = 0;

static uint32_t NodeOfContext(const std::string &ctx) {
  // "/NodeList/<id>/DeviceList/..."
  return std::stoul(ctx.substr(10, ctx.find('/', 10) - 10));
}

static void Rx(Ptr<const Packet> p, const Address &) {
  if (Simulator::Now().GetSeconds() >= g_from) g_rx += p->GetSize();
}

static void TxBegin(std::string ctx, WifiConstPsduMap psdus, WifiTxVector txv, double) {
  Ptr<const WifiPsdu> psdu = psdus.begin()->second;
  const WifiMacHeader &h = psdu->GetHeader(0);
  char kind = h.IsData() ? 'D' : h.IsAck() ? 'A' : h.IsRts() ? 'R' : h.IsCts() ? 'C' : 'O';
  Time d = WifiPhy::CalculateTxDuration(psdu->GetSize(), txv, WIFI_PHY_BAND_2_4GHZ);
  if (Simulator::Now().GetSeconds() < g_from) return;
  uint32_t node = NodeOfContext(ctx);
  if (h.IsData() && h.GetAddr1().IsGroup()) g_count["broadcast data frames (ARP)"]++;
  std::string key = std::string(1, kind) + (node == g_apNode ? " from receiver" : " from station");
  if (g_seen.insert(key).second) {
    std::printf("frame %s: mode %s, preamble %s, %u bytes, %.1f us\n", key.c_str(),
                txv.GetMode().GetUniqueName().c_str(),
                txv.GetPreambleType() == WIFI_PREAMBLE_LONG ? "long" : "short",
                psdu->GetSize(), d.GetMicroSeconds() + 0.0);
  }
  g_tx.push_back(Tx{node, Simulator::Now(), Simulator::Now() + d, kind});
  g_lastTx[node] = g_tx.size() - 1;
}

// The receiver decoded a frame: mark the transmission it came from (the
// sender's last, ended within the propagation delay).
static void ApRxOk(Ptr<const Packet> p, double, WifiMode, WifiPreamble) {
  if (Simulator::Now().GetSeconds() < g_from) return;
  WifiMacHeader h;
  p->PeekHeader(h);
  if (!(h.IsData() || h.IsRts())) return;
  auto n = g_nodeOf.find(h.GetAddr2());
  if (n == g_nodeOf.end()) return;
  auto t = g_lastTx.find(n->second);
  if (t == g_lastTx.end()) return;
  Tx &tx = g_tx[t->second];
  if (Simulator::Now() >= tx.end && Simulator::Now() - tx.end < MicroSeconds(1)) {
    tx.decoded = true;
    if (h.IsData()) g_rxPerNode[n->second]++;
  }
}

static void ApRxError(Ptr<const Packet>, double) {
  if (Simulator::Now().GetSeconds() >= g_from) g_count["receiver: frames received in error"]++;
}

static void ApRxDrop(Ptr<const Packet>, WifiPhyRxfailureReason r) {
  if (Simulator::Now().GetSeconds() < g_from) return;
  std::ostringstream s;
  s << "receiver: PhyRxDrop " << r;
  g_count[s.str()]++;
}

static void Count(std::string what, Mac48Address) {
  if (Simulator::Now().GetSeconds() >= g_from) g_count[what]++;
}

static std::vector<Ptr<WifiMacQueue>> g_queues;
static std::vector<uint64_t> g_emptyPerQueue;
static uint64_t g_samples = 0, g_empty = 0;
static void SampleQueues() {
  for (size_t i = 0; i < g_queues.size(); i++) {
    g_samples++;
    if (g_queues[i]->GetNPackets() == 0) {
      g_empty++;
      g_emptyPerQueue[i]++;
    }
  }
  Simulator::Schedule(MilliSeconds(1), &SampleQueues);
}

// The type of the PHY's model in attribute `attr`, or "none".
static std::string model(Ptr<WifiPhy> phy, const std::string &attr) {
  PointerValue v;
  phy->GetAttribute(attr, v);
  return v.Get<Object>() ? v.Get<Object>()->GetInstanceTypeId().GetName() : "none";
}

int main(int argc, char **argv) {
  uint32_t n = 5, rts = 65535, seed = 1;
  double simTime = 11.0, radius = 5.0;
  std::string layout = "grid";
  bool staticArp = false;
  CommandLine cmd;
  cmd.AddValue("n", "stations", n);
  cmd.AddValue("rts", "RTS threshold (bytes)", rts);
  cmd.AddValue("time", "simulated seconds", simTime);
  cmd.AddValue("seed", "run number", seed);
  cmd.AddValue("layout", "grid: 1..10 m; ring: every station at --radius; point: all at one "
                         "point --radius away", layout);
  cmd.AddValue("radius", "ring radius (m)", radius);
  cmd.AddValue("ack1", "every ACK at DSSS 1 Mbit/s", g_ack1);
  cmd.AddValue("staticarp", "fill the ARP caches before the start", staticArp);
  cmd.Parse(argc, argv);
  if (n < 1 || n > 500 || simTime <= g_from || simTime > 1000 || radius <= 0 || radius > 50 ||
      (layout != "grid" && layout != "ring" && layout != "point")) {
    std::fprintf(stderr, "need 1 <= n <= 500, 1 < time <= 1000, 0 < radius <= 50, "
                         "layout grid, ring or point\n");
    return 2;
  }
  RngSeedManager::SetSeed(1);
  RngSeedManager::SetRun(seed);

  NodeContainer sta, ap;
  ap.Create(1);
  sta.Create(n);
  g_apNode = ap.Get(0)->GetId();
  YansWifiChannelHelper ch = YansWifiChannelHelper::Default();
  YansWifiPhyHelper phy;
  phy.SetChannel(ch.Create());
  WifiHelper wifi;
  wifi.SetStandard(WIFI_STANDARD_80211b);
  wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode",
                               StringValue("DsssRate11Mbps"), "ControlMode",
                               StringValue("DsssRate1Mbps"), "RtsCtsThreshold",
                               UintegerValue(rts));
  WifiMacHelper mac;
  mac.SetType("ns3::AdhocWifiMac");
  NetDeviceContainer dsta = wifi.Install(phy, mac, sta);
  NetDeviceContainer dap = wifi.Install(phy, mac, ap);

  // What ns-3 uses, from its objects.
  Ptr<WifiNetDevice> d0 = DynamicCast<WifiNetDevice>(dsta.Get(0));
  Ptr<WifiPhy> p0 = d0->GetPhy();
  Ptr<Txop> txop = d0->GetMac()->GetTxop();
  Ptr<WifiRemoteStationManager> m0 = d0->GetRemoteStationManager();
  // MaxSsrc and MaxSlrc are set-only attributes: their initial values.
  TypeId::AttributeInformation ssrc, slrc;
  m0->GetInstanceTypeId().LookupAttributeByName("MaxSsrc", &ssrc);
  m0->GetInstanceTypeId().LookupAttributeByName("MaxSlrc", &slrc);
  BooleanValue qos;
  d0->GetMac()->GetAttribute("QosSupported", qos);
  std::printf("slot %ld us, SIFS %ld us, DIFS %ld us, CW %u..%u, AIFSN %u, QoS %d, "
              "retry limits %s/%s, lowest-rate ACK (EIFS) %ld us, "
              "preamble detection %s, frame capture %s\n\n",
              p0->GetSlot().GetMicroSeconds(), p0->GetSifs().GetMicroSeconds(),
              (p0->GetSifs() + txop->GetAifsn() * p0->GetSlot()).GetMicroSeconds(),
              txop->GetMinCw(), txop->GetMaxCw(), unsigned(txop->GetAifsn()), qos.Get(),
              ssrc.initialValue->SerializeToString(nullptr).c_str(),
              slrc.initialValue->SerializeToString(nullptr).c_str(),
              p0->GetAckTxTime().GetMicroSeconds(),
              model(p0, "PreambleDetectionModel").c_str(), model(p0, "FrameCaptureModel").c_str());

  NetDeviceContainer all(dap, dsta);
  for (uint32_t i = 0; i < all.GetN(); i++) {
    Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(all.Get(i));
    g_nodeOf[Mac48Address::ConvertFrom(d->GetAddress())] = d->GetNode()->GetId();
  }
  for (uint32_t i = 0; i < dsta.GetN(); i++) {
    g_queues.push_back(DynamicCast<WifiNetDevice>(dsta.Get(i))->GetMac()->GetTxop()->GetWifiMacQueue());
  }
  g_emptyPerQueue.assign(g_queues.size(), 0);

  MobilityHelper mob;
  Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
  pos->Add(Vector(0, 0, 0));
  for (uint32_t i = 0; i < n; i++) {
    if (layout == "grid") {
      pos->Add(Vector(1.0 + i % 10, 1.0 + i / 10, 0));
    } else if (layout == "point") {
      pos->Add(Vector(radius, 0, 0));
    } else {
      double a = 2 * M_PI * i / n;
      pos->Add(Vector(radius * std::cos(a), radius * std::sin(a), 0));
    }
  }
  mob.SetPositionAllocator(pos);
  mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
  mob.Install(ap);
  mob.Install(sta);

  InternetStackHelper stack;
  stack.Install(ap);
  stack.Install(sta);
  Ipv4AddressHelper addr;
  addr.SetBase("10.0.0.0", "255.255.0.0");
  Ipv4InterfaceContainer iap = addr.Assign(dap);
  addr.Assign(dsta);
  if (staticArp) NeighborCacheHelper().PopulateNeighborCache();

  PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
  ApplicationContainer sinks = sink.Install(ap.Get(0));
  sinks.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Rx));
  OnOffHelper src("ns3::UdpSocketFactory", InetSocketAddress(iap.GetAddress(0), 9));
  src.SetConstantRate(DataRate("22Mbps"), 1472);
  ApplicationContainer apps = src.Install(sta);
  apps.Start(Seconds(0.1));

  Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
                  MakeCallback(&TxBegin));
  std::ostringstream apPhy;
  apPhy << "/NodeList/" << g_apNode << "/DeviceList/0/$ns3::WifiNetDevice/Phy/";
  Config::ConnectWithoutContext(apPhy.str() + "State/RxOk", MakeCallback(&ApRxOk));
  Config::ConnectWithoutContext(apPhy.str() + "State/RxError", MakeCallback(&ApRxError));
  Config::ConnectWithoutContext(apPhy.str() + "PhyRxDrop", MakeCallback(&ApRxDrop));
  for (std::string t : {"MacTxDataFailed", "MacTxFinalDataFailed", "MacTxRtsFailed",
                        "MacTxFinalRtsFailed"}) {
    Config::ConnectWithoutContext(
        "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/RemoteStationManager/" + t,
                    MakeBoundCallback(&Count, "stations: " + t));
  }
  Simulator::Schedule(Seconds(g_from), &SampleQueues);

  Simulator::Stop(Seconds(simTime));
  Simulator::Run();

  // Collisions: an attempt (data frame, or RTS with RTS/CTS) that overlaps
  // any other transmission; with RTS/CTS a data frame cannot collide.
  char attempt = rts < 1536 ? 'R' : 'D';
  // g_tx is in start order and no frame lasts 3 ms: look back that far.
  std::vector<bool> collided(g_tx.size(), false);
  for (size_t i = 1; i < g_tx.size(); i++) {
    for (size_t j = i; j-- > 0 && g_tx[i].start - g_tx[j].start < MilliSeconds(3);) {
      if (g_tx[j].end > g_tx[i].start) {
        collided[i] = true;
        collided[j] = true;
      }
    }
  }
  uint64_t attempts = 0, coll = 0, collDecoded = 0, decoded = 0;
  for (size_t i = 0; i < g_tx.size(); i++) {
    if (g_tx[i].kind != attempt || g_tx[i].node == g_apNode) continue;
    attempts++;
    decoded += g_tx[i].decoded;
    if (collided[i]) {
      coll++;
      collDecoded += g_tx[i].decoded;
    }
  }
  double bps = g_rx * 8.0 * (1500.0 / 1472.0) / (simTime - g_from);
  std::printf("%u stations, %s, RTS threshold %u, ACK %s, ARP %s: %.0f bit/s of IP packets\n",
              n, layout.c_str(), rts, g_ack1 ? "forced 1 Mbit/s" : "ns-3's",
              staticArp ? "static" : "dynamic", bps);
  std::printf("attempts (%c) %lu, decoded %lu; collided %lu (p = %.3f), of which decoded "
              "(captured) %lu (%.1f%%)\n",
              attempt, (unsigned long)attempts, (unsigned long)decoded, (unsigned long)coll,
              attempts ? double(coll) / attempts : 0.0, (unsigned long)collDecoded,
              coll ? 100.0 * collDecoded / coll : 0.0);
  uint64_t mn = UINT64_MAX, mx = 0, heard = 0, idle = 0;
  for (uint32_t i = 0; i < n; i++) {
    auto c = g_rxPerNode.find(sta.Get(i)->GetId());
    uint64_t k = c == g_rxPerNode.end() ? 0 : c->second;
    heard += k > 0;
    mn = std::min(mn, k);
    mx = std::max(mx, k);
    idle += 2 * g_emptyPerQueue[i] > g_samples / n;
  }
  std::printf("stations heard %lu of %u; data frames decoded per station %lu..%lu\n",
              (unsigned long)heard, n, (unsigned long)mn, (unsigned long)mx);
  std::printf("queue samples (1 ms) empty: %lu of %lu; stations whose queue was empty in "
              "more than half: %lu\n",
              (unsigned long)g_empty, (unsigned long)g_samples, (unsigned long)idle);
  for (auto &c : g_count) std::printf("%s: %lu\n", c.first.c_str(), (unsigned long)c.second);
  Simulator::Destroy();
  return 0;
}
