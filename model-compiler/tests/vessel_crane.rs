//! The knuckle crane on a vessel (issue 15, item 9): models/knuckle-crane.toml with a
//! carrier-driven base, driven by a synthetic sea state 3 motion — roll ±5° at an 8 s
//! period about the vessel's length (world x) and heave ±1 m at 10 s — for 40 s with the
//! valves centred and the hook holding its load. Checks what can be checked without a
//! reference run: the machine's weight reaches the vessel (the mean vertical force over
//! whole periods), the heave's inertia on top of it, the port's work is the machine's energy
//! change, and nothing fails; the hook swing and the wrench are reported.

mod common;

use common::Machine;
use std::f64::consts::TAU;

const ROLL: f64 = 5.0 * std::f64::consts::PI / 180.0;
const ROLL_PERIOD: f64 = 8.0;
const HEAVE: f64 = 1.0;
const HEAVE_PERIOD: f64 = 10.0;

/// The vessel's motion at `t`: (roll, its rate and acceleration; heave, its rate and
/// acceleration).
fn sea(t: f64) -> ([f64; 3], [f64; 3]) {
    let (wr, wh) = (TAU / ROLL_PERIOD, TAU / HEAVE_PERIOD);
    let (sr, cr) = (wr * t).sin_cos();
    let (sh, ch) = (wh * t).sin_cos();
    (
        [ROLL * sr, ROLL * wr * cr, -ROLL * wr * wr * sr],
        [HEAVE * sh, HEAVE * wh * ch, -HEAVE * wh * wh * sh],
    )
}

fn set_sea(m: &mut Machine, t: f64) {
    let (roll, heave) = sea(t);
    m.set("base.orientation.w", (roll[0] / 2.0).cos());
    m.set("base.orientation.x", (roll[0] / 2.0).sin());
    m.set("base.angular_velocity.x", roll[1]);
    m.set("base.angular_acceleration.x", roll[2]);
    m.set("base.position.y", heave[0]);
    m.set("base.velocity.y", heave[1]);
    m.set("base.acceleration.y", heave[2]);
}

#[test]
fn the_knuckle_crane_rides_a_sea_state_3_on_its_base_port() {
    let text = std::fs::read_to_string(common::workspace().join("models/knuckle-crane.toml"))
        .unwrap()
        + "\n[interface.base]\nmotion = \"carrier\"\n";
    let model = common::compile_text("knuckle-crane-on-vessel.toml", text);
    let mass: f64 = model
        .mechanism
        .bodies
        .iter()
        .map(|b| model.default_param(b.mass))
        .sum();
    let mut m = Machine::from_model(model);
    set_sea(&mut m, 0.0);
    m.inst.initialize(0.0).unwrap();
    let hook0 = [m.get("hook.x"), m.get("hook.z")];
    let (h, t_end) = (1e-3, 40.0);
    let n = (t_end / h) as usize;
    let (mut sum_fy, mut count) = (0.0, 0);
    let (mut swing, mut fy_min, mut fy_max, mut mz_max) = (0.0f64, f64::MAX, f64::MIN, 0.0f64);
    let (mut t_min, mut t_max) = (f64::MAX, f64::MIN);
    for k in 1..=n {
        let t = k as f64 * h;
        set_sea(&mut m, t);
        m.inst.advance(t).unwrap();
        // World-vertical force on the vessel: the base-axes force turned back by the roll.
        let roll = sea(t).0[0];
        let (fy, fz) = (m.get("base.force.y"), m.get("base.force.z"));
        let vertical = fy * roll.cos() - fz * roll.sin();
        if t > 0.0 {
            sum_fy += vertical;
            count += 1;
        }
        fy_min = fy_min.min(vertical);
        fy_max = fy_max.max(vertical);
        mz_max = mz_max.max(m.get("base.moment.x").abs());
        swing = swing.max(
            ((m.get("hook.x") - hook0[0]).powi(2) + (m.get("hook.z") - hook0[1]).powi(2)).sqrt(),
        );
        let tension = m.get("rope.tension");
        t_min = t_min.min(tension);
        t_max = t_max.max(tension);
    }
    let weight = mass * 9.81;
    let mean = sum_fy / count as f64;
    let heave_inertia = mass * HEAVE * (TAU / HEAVE_PERIOD).powi(2);
    let (work, balance) = (m.get("base.work"), m.get("energy.balance_error"));
    println!(
        "knuckle crane on sea state 3 for {t_end} s: machine {mass:.0} kg; vertical force on the vessel mean {:.1} N (weight {weight:.1} N), range {:.1}…{:.1} N (± heave inertia {heave_inertia:.1} N); roll moment up to {mz_max:.1} N·m; hook swing up to {swing:.4} m in the base frame; rope tension {t_min:.1}…{t_max:.1} N; base work {work:.1} J, energy balance error {balance:.3e} J",
        -mean, -fy_max, -fy_min
    );
    // 40 s = 5 roll periods and 4 heave periods: the mean is the weight.
    assert!(
        (-mean - weight).abs() < 0.01 * weight,
        "mean {mean} vs weight {weight}"
    );
    // The heave's inertia swings the vertical force by at least most of ±M A ω².
    assert!(-fy_min > weight + 0.8 * heave_inertia && -fy_max < weight - 0.8 * heave_inertia);
    assert!(swing > 1e-3, "the sea must swing the hook");
    assert!(t_min > 0.0, "the rope stays taut");
    assert!(
        balance.abs() < 1e-5 * work.abs(),
        "energy balance {balance} J of {work} J"
    );
}
