//! `simulate --plot`: the recorded variables as panels of line plots, in the units the FMU
//! declares for display (pressures in bar, angles in deg).
//!
//! Panels are grouped by element, the first part of a variable's name (`boom_cylinder` of
//! `boom_cylinder.p_cap`): one panel per display unit of the element, so a cylinder's two
//! pressures share a panel and its length and speed sit side by side. Elements of one kind
//! (the same variables in the same units: the four valves, the joints of an arm) are drawn
//! together, one curve per element. Each group starts a row; rows have two columns when
//! there are more than four panels.

use super::Results;
use crate::bench::svg::{begin, esc};
use crate::report::plot::{Frame, Legend, Series, draw};
use std::fmt::Write as _;

/// At most this many curves share a panel (the palette's colours).
const MAX_CURVES: usize = 8;

/// One panel: its title, its axis unit (empty: none) and its curves (column of the results, legend label).
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub title: String,
    pub unit: String,
    pub curves: Vec<(usize, String)>,
}

/// `name` matches the glob `pattern` (`*` any run of characters, `?` one character).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Backtracking on the last `*` (linear in practice for names).
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// The columns of `names` matched by any of `patterns` (all of them when there are none),
/// in the order of `names`; a pattern that matches nothing is an error naming the closest
/// variable.
pub fn select(names: &[String], patterns: &[String]) -> Result<Vec<usize>, String> {
    if patterns.is_empty() {
        return Ok((0..names.len()).collect());
    }
    for p in patterns {
        if !names.iter().any(|n| glob_match(p, n)) {
            let hint = match crate::names::closest(p, names.iter().map(String::as_str)) {
                Some(s) => format!("; did you mean '{s}'?"),
                None => String::new(),
            };
            return Err(format!(
                "--plot '{p}' matches none of the recorded variables{hint} (a name or a glob such as 'boom_cylinder.*' or '*.p_*'; with --vars, only those are recorded)"
            ));
        }
    }
    Ok((0..names.len())
        .filter(|&k| patterns.iter().any(|p| glob_match(p, &names[k])))
        .collect())
}

/// The unit label of column `k`.
fn unit_of(r: &Results, k: usize) -> String {
    match r.display.get(k).and_then(|d| d.as_ref()) {
        Some(d) => d.name.clone(),
        None => String::new(),
    }
}

/// The panels of `columns` of `r`, in groups (each group: the panels of one element or of
/// elements of one kind).
pub fn panels(r: &Results, columns: &[usize]) -> Vec<Vec<Panel>> {
    // Per element in order of appearance: its (unit, [(column, rest of name)]) in order.
    type Slots = Vec<(String, Vec<(usize, String)>)>;
    let mut elements: Vec<(String, Slots)> = Vec::new();
    for &k in columns {
        let name = &r.names[k];
        let (element, rest) = name.split_once('.').unwrap_or((name.as_str(), ""));
        let unit = unit_of(r, k);
        let e = match elements.iter().position(|(n, _)| n == element) {
            Some(e) => e,
            None => {
                elements.push((element.to_string(), Vec::new()));
                elements.len() - 1
            }
        };
        let slots = &mut elements[e].1;
        match slots.iter_mut().find(|(u, _)| *u == unit) {
            Some((_, c)) => c.push((k, rest.to_string())),
            None => slots.push((unit, vec![(k, rest.to_string())])),
        }
    }
    // Elements of one kind: the same units with the same variables.
    let signature = |slots: &Slots| -> Vec<(String, Vec<String>)> {
        slots
            .iter()
            .map(|(u, c)| (u.clone(), c.iter().map(|(_, s)| s.clone()).collect()))
            .collect()
    };
    let mut kinds: Vec<Vec<usize>> = Vec::new();
    for (e, (_, slots)) in elements.iter().enumerate() {
        match kinds
            .iter_mut()
            .find(|g| signature(&elements[g[0]].1) == signature(slots))
        {
            Some(g) => g.push(e),
            None => kinds.push(vec![e]),
        }
    }
    let mut groups = Vec::new();
    for kind in kinds {
        let per_element = elements[kind[0]].1.iter().map(|(_, c)| c.len()).max();
        let chunk = (MAX_CURVES / per_element.unwrap_or(1).max(1)).max(1);
        for members in kind.chunks(chunk) {
            let mut group = Vec::new();
            let title = members
                .iter()
                .map(|&e| elements[e].0.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            for (s, (unit, _)) in elements[members[0]].1.iter().enumerate() {
                let mut curves = Vec::new();
                for &e in members {
                    let (element, slots) = &elements[e];
                    for (k, rest) in &slots[s].1 {
                        let label = match (members.len(), rest.is_empty()) {
                            (_, true) => element.clone(),
                            (1, false) => rest.clone(),
                            _ => format!("{element}.{rest}"),
                        };
                        curves.push((*k, label));
                    }
                }
                // An element with many variables in one unit: several panels.
                for part in curves.chunks(MAX_CURVES) {
                    group.push(Panel {
                        title: title.clone(),
                        unit: unit.clone(),
                        curves: part.to_vec(),
                    });
                }
            }
            groups.push(group);
        }
    }
    groups
}

/// An SVG of the `columns` of `r` over time, in their display units.
pub fn plot(r: &Results, title: &str, columns: &[usize]) -> String {
    const LEFT: f64 = 78.0;
    const RIGHT: f64 = 24.0;
    const TITLE: f64 = 40.0;
    const HEADING: f64 = 24.0;
    const PLOT_H: f64 = 150.0;
    const GAP: f64 = 16.0;
    let groups = panels(r, columns);
    let count: usize = groups.iter().map(Vec::len).sum();
    let ncol = if count > 4 { 2 } else { 1 };
    let col_w = if ncol == 2 { 600.0 } else { 760.0 };
    let width = col_w * ncol as f64;
    // Rows: each group starts one, except that single panels share.
    let mut rows: Vec<Vec<&Panel>> = Vec::new();
    let mut previous_single = false;
    for g in &groups {
        let single = g.len() == 1;
        for (i, p) in g.iter().enumerate() {
            let new_row = match rows.last() {
                None => true,
                Some(row) => row.len() == ncol || (i == 0 && !(single && previous_single)),
            };
            if new_row {
                rows.push(Vec::new());
            }
            if let Some(row) = rows.last_mut() {
                row.push(p);
            }
        }
        previous_single = single;
    }
    let series = |p: &Panel| -> Vec<Series> {
        p.curves
            .iter()
            .enumerate()
            .map(|(c, (k, label))| {
                let display = r.display.get(*k).and_then(|d| d.as_ref());
                Series {
                    label: label.clone(),
                    time: r.time.clone(),
                    values: r
                        .rows
                        .iter()
                        .map(|row| display.map_or(row[*k], |d| d.show(row[*k])))
                        .collect(),
                    colour: c,
                    reference: false,
                }
            })
            .collect()
    };
    // Lay out first (heights depend on the legends), then draw.
    let mut laid = Vec::new();
    let mut y = TITLE;
    for row in &rows {
        let mut tallest: f64 = 0.0;
        for (c, p) in row.iter().enumerate() {
            let s = series(p);
            let x = c as f64 * col_w;
            let frame = Frame {
                left: x + LEFT,
                right: x + col_w - RIGHT,
                top: y + HEADING,
                bottom: y + HEADING + PLOT_H,
                max_points: (col_w - LEFT - RIGHT) as usize,
            };
            let legend = Legend::new(&s, frame.left, frame.right);
            tallest = tallest.max(HEADING + PLOT_H + 34.0 + 18.0 * legend.rows as f64);
            laid.push((*p, frame, s, legend));
        }
        y += tallest + GAP;
    }
    let mut s = String::new();
    begin(
        &mut s,
        width,
        y,
        width / 2.0,
        &format!("{title} — time in s, values in the FMU's display units"),
    );
    for (p, frame, curves, legend) in &laid {
        // The unit in the heading: beside the tick labels a rotated one has no room.
        let unit = match p.unit.as_str() {
            "" => String::new(),
            u => format!("  [{}]", esc(u)),
        };
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}"><tspan font-weight="bold">{}</tspan>{unit}</text>"#,
            frame.left,
            frame.top - 8.0,
            esc(&p.title)
        );
        draw(&mut s, frame, "", "", curves, legend);
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::xml::DisplayUnit;

    fn unit(name: &str, factor: f64) -> Option<DisplayUnit> {
        Some(DisplayUnit {
            name: name.into(),
            factor,
            offset: 0.0,
        })
    }

    fn results(columns: &[(&str, Option<DisplayUnit>)]) -> Results {
        Results {
            names: columns.iter().map(|c| c.0.to_string()).collect(),
            display: columns.iter().map(|c| c.1.clone()).collect(),
            time: vec![0.0, 1.0],
            rows: vec![vec![1e5; columns.len()], vec![2e5; columns.len()]],
        }
    }

    #[test]
    fn globs_match_names_and_select_keeps_the_recorded_order() {
        assert!(glob_match("boom_cylinder.*", "boom_cylinder.p_cap"));
        assert!(glob_match("*.p_*", "swing_motor.p_a"));
        assert!(glob_match("a?c", "abc") && !glob_match("a?c", "abbc"));
        assert!(glob_match("*", "") && !glob_match("x", ""));
        assert!(!glob_match("*.p_*", "boom.angle"));
        let names: Vec<String> = ["a.x", "b.p_a", "a.p_b"].map(String::from).to_vec();
        assert_eq!(
            select(&names, &["*.p_*".into(), "a.x".into()]).unwrap(),
            [0, 1, 2]
        );
        assert_eq!(select(&names, &["b.*".into()]).unwrap(), [1]);
        let e = select(&names, &["a.y".into()]).unwrap_err();
        assert!(
            e.contains("'a.y' matches none") && e.contains("did you mean 'a.x'"),
            "{e}"
        );
    }

    #[test]
    fn panels_group_an_element_by_unit_and_elements_of_one_kind() {
        let r = results(&[
            ("boom.angle", unit("deg", 57.3)),
            ("boom.rate", unit("deg/s", 57.3)),
            ("stick.angle", unit("deg", 57.3)),
            ("stick.rate", unit("deg/s", 57.3)),
            ("cyl.length", unit("mm", 1e3)),
            ("cyl.p_cap", unit("bar", 1e-5)),
            ("cyl.p_rod", unit("bar", 1e-5)),
            ("solver.iterations", None),
        ]);
        let g = panels(&r, &(0..8).collect::<Vec<_>>());
        assert_eq!(g.len(), 3);
        // The two joints: one panel per unit, a curve per joint.
        assert_eq!(g[0].len(), 2);
        assert_eq!(g[0][0].title, "boom, stick");
        assert_eq!(g[0][0].unit, "deg");
        assert_eq!(
            g[0][0].curves,
            [
                (0, "boom.angle".to_string()),
                (2, "stick.angle".to_string())
            ]
        );
        // The cylinder: length alone, both pressures together, labelled by their names.
        assert_eq!(g[1].len(), 2);
        assert_eq!((g[1][1].unit.as_str(), g[1][1].curves.len()), ("bar", 2));
        assert_eq!(g[1][1].curves[1].1, "p_rod");
        assert_eq!(g[2][0].unit, "");
    }

    #[test]
    fn plots_show_display_units_with_round_ticks() {
        let r = results(&[
            ("cyl.p_cap", unit("bar", 1e-5)),
            ("cyl.p_rod", unit("bar", 1e-5)),
        ]);
        let svg = plot(&r, "m", &[0, 1]);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("[bar]") && svg.contains(">cyl<"), "{svg}");
        // 1e5..2e5 Pa is 1..2 bar: ticks at round bar values, not in Pa.
        assert!(svg.contains(">1.0<") && svg.contains(">2.0<"), "{svg}");
        assert!(!svg.contains("100000"));
    }
}
