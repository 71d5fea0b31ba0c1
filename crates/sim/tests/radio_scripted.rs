//! Scripted link-layer scenarios (E4 cases) through the public radio API.

use std::time::Duration;

use msctp_sim::Time;
use msctp_sim::models::mobility::{Point, Trajectory};
use msctp_sim::models::radio::{
    AddressAcquisition, CellIndex, CellRadio, CellSignal, DecisionLatency, RadioConfig, RadioError,
    RadioEvent, RadioTimeline, SampleMode, ScriptedSignal, Thresholds, TimedRadioEvent,
    coverage_intervals, generate_timeline,
};

const WLAN: CellIndex = CellIndex(2);
const P: f64 = 1e-9; // well above every E3 threshold

fn ms(x: u64) -> Time {
    Time::from_millis(x)
}

fn wlan(signal: ScriptedSignal, x_ms: u64, y_ms: u64, acq: AddressAcquisition) -> CellRadio {
    let mut c = CellRadio::new(WLAN, CellSignal::Scripted(signal), Thresholds::E3);
    c.decision = DecisionLatency {
        link_up_after: Duration::from_millis(x_ms),
        link_down_after: Duration::from_millis(y_ms),
        beacon_lost_after: Duration::from_millis(100),
    };
    c.acquisition = acq;
    c
}

fn station() -> Trajectory {
    Trajectory::stationary(Point::ORIGIN).unwrap()
}

fn no_samples() -> RadioConfig {
    RadioConfig {
        sample_mode: SampleMode::Off,
        ..RadioConfig::default()
    }
}

fn run(cells: &[CellRadio], end_ms: u64) -> Vec<TimedRadioEvent> {
    generate_timeline(&station(), cells, Time::ZERO, ms(end_ms), &no_samples())
        .unwrap()
        .into_events()
}

fn times_of(events: &[TimedRadioEvent], want: fn(&RadioEvent) -> bool) -> Vec<Time> {
    events
        .iter()
        .filter(|e| want(&e.event))
        .map(|e| e.time)
        .collect()
}

#[test]
fn e4_case1_link_up_after_x() {
    // WLAN beacons from t = 20 s; x = 0.5 s; WLAN acquisition 700 ms.
    let sig = ScriptedSignal::from(P, Time::from_secs(20)).unwrap();
    let ev = run(
        &[wlan(sig, 500, 100, AddressAcquisition::wlan_default())],
        25_000,
    );
    let kinds: Vec<_> = ev.iter().map(|e| (e.time, e.event)).collect();
    assert_eq!(
        kinds,
        vec![
            (ms(20_000), RadioEvent::BeaconDetected { cell: WLAN }),
            (ms(20_500), RadioEvent::LinkUp { cell: WLAN }),
            (ms(21_200), RadioEvent::AddressObtained { cell: WLAN }),
        ]
    );
    // x from 0.1 to 3 s: LinkUp exactly x after the first beacon.
    for x in [100, 200, 1_000, 3_000] {
        let sig = ScriptedSignal::from(P, Time::from_secs(20)).unwrap();
        let ev = run(&[wlan(sig, x, 100, AddressAcquisition::NONE)], 25_000);
        assert_eq!(
            times_of(&ev, |e| matches!(e, RadioEvent::LinkUp { .. })),
            vec![ms(20_000 + x)]
        );
        // Zero acquisition latency: the address comes with the link.
        assert_eq!(
            times_of(&ev, |e| matches!(e, RadioEvent::AddressObtained { .. })),
            vec![ms(20_000 + x)]
        );
    }
}

#[test]
fn e4_case2_link_down_after_y() {
    // Beacons stop at t = 30 s: the last one is at 29.9 s.
    for y in [100, 300, 1_000, 3_000] {
        let sig = ScriptedSignal::until(P, Time::from_secs(30)).unwrap();
        let ev = run(
            &[wlan(sig, 100, y, AddressAcquisition::wlan_default())],
            40_000,
        );
        assert_eq!(
            times_of(&ev, |e| matches!(e, RadioEvent::LinkUp { .. })),
            vec![ms(100)]
        );
        assert_eq!(
            times_of(&ev, |e| matches!(e, RadioEvent::BeaconLost { .. })),
            vec![ms(30_000)]
        );
        assert_eq!(
            times_of(&ev, |e| matches!(e, RadioEvent::LinkDown { .. })),
            vec![ms(29_900 + y)]
        );
        assert_eq!(
            times_of(&ev, |e| matches!(e, RadioEvent::AddressLost { .. })),
            vec![ms(29_900 + y)]
        );
    }
}

#[test]
fn e4_case3_ping_pong() {
    // WLAN on for 1 s, off for 1 s, five times from t = 20 s; x = y = 0.1 s.
    let sig = ScriptedSignal::on_off(
        P,
        Time::from_secs(20),
        Duration::from_secs(1),
        Duration::from_secs(1),
        5,
    )
    .unwrap();
    let ev = run(
        &[wlan(
            sig.clone(),
            100,
            100,
            AddressAcquisition::wlan_default(),
        )],
        40_000,
    );
    let ups = times_of(&ev, |e| matches!(e, RadioEvent::LinkUp { .. }));
    let downs = times_of(&ev, |e| matches!(e, RadioEvent::LinkDown { .. }));
    let addrs = times_of(&ev, |e| matches!(e, RadioEvent::AddressObtained { .. }));
    let lost = times_of(&ev, |e| matches!(e, RadioEvent::AddressLost { .. }));
    let on = |i: u64| 20_000 + 2_000 * i;
    assert_eq!(ups, (0..5).map(|i| ms(on(i) + 100)).collect::<Vec<_>>());
    // Last beacon at on + 900 ms, declared down 100 ms later.
    assert_eq!(downs, (0..5).map(|i| ms(on(i) + 1_000)).collect::<Vec<_>>());
    assert_eq!(addrs, (0..5).map(|i| ms(on(i) + 800)).collect::<Vec<_>>());
    assert_eq!(lost, downs);
    // Into UMTS-like acquisition (1.3 s) the address never arrives: each
    // link is gone before; no AddressLost either.
    let ev = run(
        &[wlan(sig, 100, 100, AddressAcquisition::umts_default())],
        40_000,
    );
    assert_eq!(
        times_of(&ev, |e| matches!(e, RadioEvent::LinkUp { .. })).len(),
        5
    );
    assert!(times_of(&ev, |e| matches!(e, RadioEvent::AddressObtained { .. })).is_empty());
    assert!(times_of(&ev, |e| matches!(e, RadioEvent::AddressLost { .. })).is_empty());
}

#[test]
fn a_gap_restarts_the_link_up_run() {
    // Beacons 1.0-1.3 s, none at 1.3 s (a 100 ms hole), then from 1.4 s.
    let sig =
        ScriptedSignal::available(P, &[(ms(1_000), ms(1_250)), (ms(1_350), Time::MAX)]).unwrap();
    let ev = run(&[wlan(sig, 300, 500, AddressAcquisition::NONE)], 3_000);
    // Run 1.0, 1.1, 1.2 is broken at 1.3; the new run starts at 1.4 and is
    // long enough at 1.7.
    assert_eq!(
        times_of(&ev, |e| matches!(e, RadioEvent::LinkUp { .. })),
        vec![ms(1_700)]
    );
    assert_eq!(
        times_of(&ev, |e| matches!(e, RadioEvent::BeaconLost { .. })),
        vec![ms(1_300)]
    );
    assert_eq!(
        times_of(&ev, |e| matches!(e, RadioEvent::BeaconDetected { .. })),
        vec![ms(1_000), ms(1_400)]
    );
}

#[test]
fn a_short_hole_does_not_take_the_link_down() {
    // y = 300 ms tolerates two missing beacons (1.3 and 1.4 s) but not three.
    let sig = ScriptedSignal::available(
        P,
        &[
            (ms(0), ms(1_250)),
            (ms(1_450), ms(2_000)),
            (ms(2_350), Time::MAX),
        ],
    )
    .unwrap();
    let ev = run(&[wlan(sig, 0, 300, AddressAcquisition::NONE)], 3_000);
    // Down at 1.9 + 0.3 = 2.2 s (slots 2.0, 2.1, 2.2 missing); the beacon at
    // 1.5 s came exactly 300 ms after 1.2 s, which is still in time.
    assert_eq!(
        times_of(&ev, |e| matches!(e, RadioEvent::LinkDown { .. })),
        vec![ms(2_200)]
    );
    assert_eq!(
        times_of(&ev, |e| matches!(e, RadioEvent::LinkUp { .. })),
        vec![ms(0), ms(2_400)]
    );
}

#[test]
fn weak_signal_is_heard_but_not_usable_and_warns() {
    // 2e-10 W: above detection (1.5e-11) but below data (3.6e-10); then
    // 4e-10 W: usable but below the warning (4.7e-10); then 1e-9 W.
    let sig = ScriptedSignal::new(vec![
        (ms(0), Some(2e-10)),
        (ms(1_000), Some(4e-10)),
        (ms(2_000), Some(1e-9)),
    ])
    .unwrap();
    let mut cell = wlan(sig, 0, 100, AddressAcquisition::NONE);
    let cfg = RadioConfig {
        sample_mode: SampleMode::EveryBeacon,
        ..RadioConfig::default()
    };
    let ev = generate_timeline(
        &station(),
        std::slice::from_ref(&cell),
        Time::ZERO,
        ms(2_500),
        &cfg,
    )
    .unwrap();
    let ev = ev.events();
    assert_eq!(
        times_of(ev, |e| matches!(e, RadioEvent::BeaconDetected { .. })),
        vec![ms(0)]
    );
    assert_eq!(
        times_of(ev, |e| matches!(e, RadioEvent::LinkUp { .. })),
        vec![ms(1_000)]
    );
    assert_eq!(
        times_of(ev, |e| matches!(e, RadioEvent::LinkGoingDown { .. })),
        vec![ms(1_000)]
    );
    // One sample per beacon, with the scripted power.
    let samples: Vec<_> = ev
        .iter()
        .filter_map(|e| match e.event {
            RadioEvent::SignalSample { power_w, .. } => Some((e.time, power_w)),
            _ => None,
        })
        .collect();
    assert_eq!(samples.len(), 26);
    assert_eq!(samples[0], (ms(0), 2e-10));
    assert_eq!(samples[10], (ms(1_000), 4e-10));
    assert_eq!(samples[25], (ms(2_500), 1e-9));
    // Same-time order: sample, link up, going down, then the address due
    // at the same instant (zero acquisition latency).
    let at_1s: Vec<_> = ev
        .iter()
        .filter(|e| e.time == ms(1_000))
        .map(|e| e.event)
        .collect();
    assert!(matches!(
        at_1s[..],
        [
            RadioEvent::SignalSample { .. },
            RadioEvent::LinkUp { .. },
            RadioEvent::LinkGoingDown { .. },
            RadioEvent::AddressObtained { .. }
        ]
    ));
    // Warning disabled when it equals the data threshold.
    cell.thresholds.going_down_w = cell.thresholds.data_w;
    let ev = generate_timeline(&station(), &[cell], Time::ZERO, ms(2_500), &cfg).unwrap();
    assert!(
        ev.events()
            .iter()
            .all(|e| !matches!(e.event, RadioEvent::LinkGoingDown { .. }))
    );
}

#[test]
fn beacon_offset_and_window_and_queries() {
    let sig = ScriptedSignal::from(P, ms(1_000)).unwrap();
    let mut c = wlan(sig, 0, 100, AddressAcquisition::NONE);
    c.beacon_offset = Duration::from_millis(37);
    let cfg = RadioConfig {
        sample_mode: SampleMode::EveryBeacon,
        ..RadioConfig::default()
    };
    let tl = generate_timeline(&station(), &[c], ms(500), ms(2_000), &cfg).unwrap();
    // First heard beacon: 1.037 s.
    assert_eq!(tl.events()[0].time, ms(1_037));
    assert_eq!(tl.next_after(ms(1_037)).map(|e| e.time), Some(ms(1_137)));
    assert_eq!(tl.window(ms(1_037), ms(1_137)).len(), 4); // detected, sample, up, address
    assert_eq!(tl.for_cell(WLAN).count(), tl.len());
    assert_eq!(tl.for_cell(CellIndex(9)).count(), 0);
    assert!(tl.next_after(ms(2_000)).is_none());
}

#[test]
fn interval_sampling_and_two_cells() {
    let umts = CellRadio::new(
        CellIndex(1),
        CellSignal::Scripted(ScriptedSignal::from(5e-10, Time::ZERO).unwrap()),
        Thresholds::E3,
    );
    let w = wlan(
        ScriptedSignal::from(P, ms(250)).unwrap(),
        0,
        100,
        AddressAcquisition::NONE,
    );
    let cfg = RadioConfig {
        sample_mode: SampleMode::Interval(Duration::from_millis(250)),
        ..RadioConfig::default()
    };
    let tl = generate_timeline(&station(), &[umts, w], Time::ZERO, ms(1_000), &cfg).unwrap();
    let samples: Vec<_> = tl
        .events()
        .iter()
        .filter_map(|e| match e.event {
            RadioEvent::SignalSample { cell, .. } => Some((e.time, cell)),
            _ => None,
        })
        .collect();
    // UMTS at 0, 250, 500, 750, 1000; WLAN from 250 on.
    assert_eq!(samples.len(), 9);
    assert_eq!(samples[0], (ms(0), CellIndex(1)));
    assert_eq!(samples[1], (ms(250), CellIndex(1)));
    assert_eq!(samples[2], (ms(250), WLAN));
    // Sorted by time overall.
    assert!(tl.events().windows(2).all(|p| p[0].time <= p[1].time));
    // Coverage of a scripted cell.
    let w = wlan(
        ScriptedSignal::from(P, ms(250)).unwrap(),
        0,
        100,
        AddressAcquisition::NONE,
    );
    assert_eq!(
        coverage_intervals(&station(), &w, 3.6e-10).unwrap(),
        vec![(ms(250), None)]
    );
    assert!(coverage_intervals(&station(), &w, -1.0).is_err());
}

#[test]
fn limits_and_bad_input_are_errors() {
    let sig = ScriptedSignal::from(P, Time::ZERO).unwrap();
    let c = wlan(sig, 0, 100, AddressAcquisition::NONE);
    let st = station();
    let small = RadioConfig {
        max_events: 10,
        ..RadioConfig::default()
    };
    assert_eq!(
        generate_timeline(
            &st,
            std::slice::from_ref(&c),
            Time::ZERO,
            ms(10_000),
            &small
        ),
        Err(RadioError::TooManyEvents { limit: 10 })
    );
    let few_slots = RadioConfig {
        max_slots_per_cell: 5,
        ..RadioConfig::default()
    };
    assert!(matches!(
        generate_timeline(
            &st,
            std::slice::from_ref(&c),
            Time::ZERO,
            ms(10_000),
            &few_slots
        ),
        Err(RadioError::TooManySlots { .. })
    ));
    assert_eq!(
        generate_timeline(
            &st,
            &[c.clone(), c.clone()],
            Time::ZERO,
            ms(1),
            &RadioConfig::default()
        ),
        Err(RadioError::DuplicateCell(WLAN))
    );
    assert_eq!(
        generate_timeline(
            &st,
            std::slice::from_ref(&c),
            ms(2),
            ms(1),
            &RadioConfig::default()
        ),
        Err(RadioError::BadWindow)
    );
    let zero = RadioConfig {
        sample_mode: SampleMode::Interval(Duration::ZERO),
        ..RadioConfig::default()
    };
    assert_eq!(
        generate_timeline(&st, std::slice::from_ref(&c), Time::ZERO, ms(1), &zero),
        Err(RadioError::BadSamplePeriod)
    );
    let mut bad = c;
    bad.decision.link_down_after = Duration::from_millis(10);
    assert!(matches!(
        generate_timeline(&st, &[bad], Time::ZERO, ms(1), &RadioConfig::default()),
        Err(RadioError::BadTiming(..))
    ));
    // Hand-made timelines are sorted stably.
    let e = |t: u64, c: u32| TimedRadioEvent {
        time: ms(t),
        event: RadioEvent::LinkUp { cell: CellIndex(c) },
    };
    let tl = RadioTimeline::from_events(vec![e(5, 1), e(1, 2), e(5, 3)]);
    assert_eq!(tl.events(), &[e(1, 2), e(5, 1), e(5, 3)]);
}
