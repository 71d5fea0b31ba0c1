// Saturation throughput of 802.11b DCF in ns-3 (cross-check of msctp-sim's
// kernel::dcf): n stations always have a 1500-byte IP packet for one
// receiver; DSSS 11 Mbit/s data, 1 Mbit/s control; ns-3's defaults for
// the rest (CW 31..1023, retry limits 7 / 4, long PLCP preamble).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"
#include <cstdio>

using namespace ns3;

static uint64_t g_rx = 0;
static double g_from = 1.0;

static void Rx(Ptr<const Packet> p, const Address &) {
  if (Simulator::Now().GetSeconds() >= g_from) g_rx += p->GetSize();
}

int main(int argc, char **argv) {
  uint32_t n = 5, rts = 65535, seed = 1;
  bool basic1 = false;
  double simTime = 11.0;
  CommandLine cmd;
  cmd.AddValue("n", "stations", n);
  cmd.AddValue("rts", "RTS threshold (bytes)", rts);
  cmd.AddValue("time", "simulated seconds", simTime);
  cmd.AddValue("seed", "run number", seed);
  cmd.AddValue("basic1", "basic rate set {1 Mbit/s}: ACK and CTS at 1 Mbit/s", basic1);
  cmd.Parse(argc, argv);
  RngSeedManager::SetSeed(1);
  RngSeedManager::SetRun(seed);

  NodeContainer sta, ap;
  sta.Create(n);
  ap.Create(1);
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
  if (basic1) {
    // Control answers (ACK, CTS) go at the highest basic rate not above
    // the frame's; with no basic rate set ns-3 takes the mandatory
    // rates, 11 Mbit/s included for HR/DSSS. Bianchi's set-up: 1 Mbit/s.
    NetDeviceContainer all(dsta, dap);
    for (uint32_t i = 0; i < all.GetN(); i++) {
      Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(all.Get(i));
      d->GetRemoteStationManager()->AddBasicMode(WifiMode("DsssRate1Mbps"));
    }
  }

  MobilityHelper mob;
  Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
  pos->Add(Vector(0, 0, 0));
  for (uint32_t i = 0; i < n; i++) pos->Add(Vector(1.0 + i % 10, 1.0 + i / 10, 0));
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
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
  ApplicationContainer sinks = sink.Install(ap.Get(0));
  sinks.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Rx));
  OnOffHelper src("ns3::UdpSocketFactory", InetSocketAddress(iap.GetAddress(0), 9));
  // 1472 bytes of UDP payload: 1500-byte IP packets; twice the cell's
  // rate per station keeps every queue full.
  src.SetConstantRate(DataRate("22Mbps"), 1472);
  ApplicationContainer apps = src.Install(sta);
  apps.Start(Seconds(0.1));

  Simulator::Stop(Seconds(simTime));
  Simulator::Run();
  double bps = g_rx * 8.0 * (1500.0 / 1472.0) / (simTime - g_from);
  std::printf("%u %u %.0f\n", n, rts, bps);
  Simulator::Destroy();
  return 0;
}
