//! Link-layer events from geometry: a station moving through E3's and
//! E1's cells, checked against hand-computed crossing times.

use std::time::Duration;

use msctp_sim::Time;
use msctp_sim::models::mobility::{
    OverlapGeometry, Point, TrajectoryBuilder, TurnPolicy, scheduled_handoffs,
};
use msctp_sim::models::radio::propagation::{
    E3_CELL_TX_POWER_W, NS2_DEFAULT_RX_THRESHOLD_W, TwoRayGround,
};
use msctp_sim::models::radio::{
    AddressAcquisition, CellIndex, CellRadio, RadioConfig, RadioEvent, SampleMode, Thresholds,
    TimedRadioEvent, coverage_intervals, generate_timeline,
};

fn ms(x: u64) -> Time {
    Time::from_millis(x)
}

fn times(ev: &[TimedRadioEvent], cell: CellIndex, want: fn(&RadioEvent) -> bool) -> Vec<Time> {
    ev.iter()
        .filter(|e| e.event.cell() == cell && want(&e.event))
        .map(|e| e.time)
        .collect()
}

fn close(a: Time, b: Time) -> bool {
    a.as_nanos().abs_diff(b.as_nanos()) <= 2
}

#[test]
fn e3_straight_pass_between_two_cells() {
    // E3: cells of radius 190 m (data threshold 3.6e-10 W) at x = 0 and
    // x = 300; the station goes from x = -50 to x = 350 at 20 m/s from t = 0,
    // so it is at x = -50 + 20 t. Beacons every 100 ms at 50 ms offset (no
    // beacon falls exactly on a boundary).
    let prop = TwoRayGround::ns2_default()
        .with_tx_power_w(E3_CELL_TX_POWER_W)
        .unwrap();
    let mut b = TrajectoryBuilder::new(Time::ZERO, Point::new(-50.0, 0.0)).unwrap();
    b.move_to(Point::new(350.0, 0.0), 20.0).unwrap();
    let st = b.build();
    let (a, bb) = (CellIndex(1), CellIndex(2));
    let mut cells = vec![
        CellRadio::geometric(a, Point::new(0.0, 0.0), prop, Thresholds::E3),
        CellRadio::geometric(bb, Point::new(300.0, 0.0), prop, Thresholds::E3),
    ];
    for c in &mut cells {
        c.beacon_offset = Duration::from_millis(50);
        c.acquisition = AddressAcquisition {
            dhcp: Duration::from_millis(300),
            ..AddressAcquisition::NONE
        };
    }
    let cfg = RadioConfig {
        sample_mode: SampleMode::EveryBeacon,
        ..RadioConfig::default()
    };
    let tl = generate_timeline(&st, &cells, Time::ZERO, ms(20_000), &cfg).unwrap();
    let ev = tl.events();

    // Cell A: usable until x = 190 (t = 12 s): last usable beacon 11.95 s,
    // down 100 ms later. Warning below 4.7e-10 W, i.e. beyond 177.75 m
    // (t > 11.3875 s): first beacon 11.45 s. Detection range 420.5 m is
    // never left.
    assert_eq!(
        times(ev, a, |e| matches!(e, RadioEvent::LinkUp { .. })),
        vec![ms(50)]
    );
    assert_eq!(
        times(ev, a, |e| matches!(e, RadioEvent::AddressObtained { .. })),
        vec![ms(350)]
    );
    assert_eq!(
        times(ev, a, |e| matches!(e, RadioEvent::LinkGoingDown { .. })),
        vec![ms(11_450)]
    );
    assert_eq!(
        times(ev, a, |e| matches!(e, RadioEvent::LinkDown { .. })),
        vec![ms(12_050)]
    );
    assert_eq!(
        times(ev, a, |e| matches!(e, RadioEvent::AddressLost { .. })),
        vec![ms(12_050)]
    );
    assert_eq!(
        times(ev, a, |e| matches!(e, RadioEvent::BeaconLost { .. })),
        vec![]
    );
    assert_eq!(
        times(ev, a, |e| matches!(e, RadioEvent::BeaconDetected { .. })),
        vec![ms(50)]
    );

    // Cell B: usable from x = 110 (t = 8 s): first beacon 8.05 s. Near its
    // edge the power is below the warning, so a warning comes with link up.
    assert_eq!(
        times(ev, bb, |e| matches!(e, RadioEvent::LinkUp { .. })),
        vec![ms(8_050)]
    );
    assert_eq!(
        times(ev, bb, |e| matches!(e, RadioEvent::LinkGoingDown { .. })),
        vec![ms(8_050)]
    );
    assert_eq!(
        times(ev, bb, |e| matches!(e, RadioEvent::AddressObtained { .. })),
        vec![ms(8_350)]
    );
    assert!(times(ev, bb, |e| matches!(e, RadioEvent::LinkDown { .. })).is_empty());

    // Samples: one per heard beacon for both cells (both always heard);
    // A's power rises until the station passes x = 0 (t = 2.5 s), then falls.
    let sa: Vec<f64> = ev
        .iter()
        .filter_map(|e| match e.event {
            RadioEvent::SignalSample { cell, power_w } if cell == a => Some(power_w),
            _ => None,
        })
        .collect();
    assert_eq!(sa.len(), 200);
    assert!(sa[..25].windows(2).all(|w| w[0] <= w[1]));
    assert!(sa[25..].windows(2).all(|w| w[0] >= w[1]));
    // At t = 12.05 s the station is 191 m from A.
    assert!((sa[120] - prop.received_power_w(191.0)).abs() < 1e-12 * sa[120].max(1e-20) + 1e-18);

    // Exact physical coverage at the data threshold.
    let cov_a = coverage_intervals(&st, &cells[0], 3.6e-10).unwrap();
    assert_eq!(cov_a.len(), 1);
    assert_eq!(cov_a[0].0, Time::ZERO);
    assert!(close(cov_a[0].1.unwrap(), ms(12_000)), "{:?}", cov_a);
    let cov_b = coverage_intervals(&st, &cells[1], 3.6e-10).unwrap();
    assert!(
        close(cov_b[0].0, ms(8_000)) && cov_b[0].1.is_none(),
        "{:?}",
        cov_b
    );
    // Same inputs, same outputs.
    assert_eq!(
        generate_timeline(&st, &cells, Time::ZERO, ms(20_000), &cfg).unwrap(),
        tl
    );
}

#[test]
fn e1_handoffs_give_matching_link_events() {
    // E1: UMTS Node-B radius 500 m, AP radius 250 m at ns-2's RXThresh.
    let g = OverlapGeometry::default();
    let wlan_prop = TwoRayGround::ns2_default();
    let umts_pt = wlan_prop
        .tx_power_for_range_w(g.node_b_radius_m, NS2_DEFAULT_RX_THRESHOLD_W)
        .unwrap();
    let umts_prop = wlan_prop.with_tx_power_w(umts_pt).unwrap();
    let th = Thresholds::NS2;
    let (umts, wlan) = (CellIndex(1), CellIndex(2));
    let mut u = CellRadio::geometric(umts, g.node_b, umts_prop, th);
    u.acquisition = AddressAcquisition::umts_default();
    let mut w = CellRadio::geometric(wlan, g.ap, wlan_prop, th);
    w.acquisition = AddressAcquisition::wlan_default();
    w.beacon_offset = Duration::from_millis(13);
    let cells = [u, w];
    let start = Time::from_secs(30);
    let len = Duration::from_secs(600);
    let cfg = RadioConfig {
        sample_mode: SampleMode::Off,
        ..RadioConfig::default()
    };
    for n in [0u32, 1, 4, 7, 10] {
        let st = scheduled_handoffs(&g, TurnPolicy::Continuous, n, start, len).unwrap();
        let tl = generate_timeline(&st, &cells, Time::ZERO, start + len, &cfg).unwrap();
        let ev = tl.events();
        let ups = times(ev, wlan, |e| matches!(e, RadioEvent::LinkUp { .. }));
        let downs = times(ev, wlan, |e| matches!(e, RadioEvent::LinkDown { .. }));
        assert_eq!(ups.len() as u32, n.div_ceil(2), "n={n}");
        assert_eq!(downs.len() as u32, n / 2, "n={n}");
        // UMTS: up from the first beacon, never down.
        assert_eq!(
            times(ev, umts, |e| matches!(e, RadioEvent::LinkUp { .. })),
            vec![Time::ZERO]
        );
        assert!(times(ev, umts, |e| matches!(e, RadioEvent::LinkDown { .. })).is_empty());
        assert_eq!(
            times(ev, umts, |e| matches!(
                e,
                RadioEvent::AddressObtained { .. }
            )),
            vec![ms(1_300)]
        );
        // Each WLAN link up is at the first beacon (13 ms + k * 100 ms) at or
        // after the exact entry into its 250 m range, i.e. within 100 ms.
        let cov = coverage_intervals(&st, &cells[1], NS2_DEFAULT_RX_THRESHOLD_W).unwrap();
        assert_eq!(cov.len(), ups.len());
        for (up, (enter, exit)) in ups.iter().zip(&cov) {
            let lag = up.as_nanos() - enter.as_nanos();
            assert!(lag < 100_000_000, "lag {lag}");
            assert_eq!((up.as_nanos() - 13_000_000) % 100_000_000, 0);
            if let Some(exit) = exit {
                assert!(*exit > *up);
            }
        }
    }
}
