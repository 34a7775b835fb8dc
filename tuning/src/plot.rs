//! PNG plots of the tuning tools, drawn with `plotters` on an RGB buffer and written with `png`:
//!
//! - [`write_png`]: each SPSA parameter's path against the iterations, one panel per
//!   parameter, the y axis scaled to where the value went, with the start value and the band
//!   of ± `c_end` around the final value (moves smaller than the last perturbation are noise);
//!   one legend for all panels, in a strip above them, so no panel's path is hidden under it.
//! - [`write_loss_png`]: a network's training and validation loss per epoch.
//!
//! Text uses DejaVu Sans from the `dejavu` crate, registered with plotters' `ab_glyph` font
//! backend: no system fonts are needed.

use std::path::Path;
use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::FontStyle;

/// The family name the embedded font is registered under.
const FONT: &str = "dejavu-sans";

const PANEL_W: u32 = 420;
const PANEL_H: u32 = 240;
const COLUMNS: u32 = 3;
/// Height of the strip above the panels that holds their shared legend.
const LEGEND_H: u32 = 28;

const PATH: RGBColor = RGBColor(30, 70, 200);
const START: RGBColor = RGBColor(200, 60, 50);
const BAND: RGBColor = RGBColor(120, 170, 230);
const VALIDATION: RGBColor = RGBColor(200, 50, 40);

/// Registers the embedded font once per process.
fn register_font() -> Result<(), String> {
    static LOADED: OnceLock<bool> = OnceLock::new();
    let loaded = *LOADED.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok()
    });
    if loaded {
        Ok(())
    } else {
        Err("plot: the embedded font does not load".to_string())
    }
}

/// Writes an RGB buffer as a PNG.
fn save_png(path: &Path, rgb: &[u8], w: u32, h: u32) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())
}

/// A plotters error as text.
fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("plot: {e:?}")
}

/// One parameter's path.
pub struct Series<'a> {
    pub name: &'a str,
    pub min: f64,
    pub max: f64,
    pub start: f64,
    /// The perturbation at the end of the run: changes smaller than this are noise.
    pub c_end: f64,
    /// The value after each iteration, in the order they finished.
    pub values: &'a [f64],
}

impl Series<'_> {
    /// The y range of the panel: the path, its start and its final band, padded by a tenth,
    /// kept inside the parameter's [min, max].
    fn y_range(&self) -> (f64, f64) {
        let last = self.values.last().copied().unwrap_or(self.start);
        let mut lo = self
            .values
            .iter()
            .copied()
            .fold(self.start.min(last - self.c_end), f64::min);
        let mut hi = self
            .values
            .iter()
            .copied()
            .fold(self.start.max(last + self.c_end), f64::max);
        let pad = ((hi - lo) * 0.1).max(1e-6);
        lo = (lo - pad).max(self.min);
        hi = (hi + pad).min(self.max);
        if hi <= lo {
            hi = lo + 1.0;
        }
        (lo, hi)
    }
}

/// Renders every parameter's path, one panel each, three panels to a row, under one legend.
pub fn write_png(path: &Path, series: &[Series<'_>]) -> Result<(), String> {
    register_font()?;
    let rows = (series.len() as u32).div_ceil(COLUMNS).max(1);
    let (w, h) = (COLUMNS * PANEL_W, LEGEND_H + rows * PANEL_H);
    let mut rgb = vec![255u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        let (strip, body) = root.split_vertically(LEGEND_H);
        draw_legend(&strip)?;
        let panels = body.split_evenly((rows as usize, COLUMNS as usize));
        for (s, area) in series.iter().zip(&panels) {
            draw_series(s, area)?;
        }
        root.present().map_err(err)?;
    }
    save_png(path, &rgb, w, h)
}

/// The legend every panel shares: the path, the start value, the final value's ± c_end band.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String> {
    let y = (LEGEND_H / 2) as i32;
    let text = (FONT, 13).into_font().color(&BLACK);
    let mut x = 16;
    for (label, kind) in [
        ("value after each iteration", 0),
        ("start", 1),
        ("final value ± c_end (the last perturbation)", 2),
    ] {
        match kind {
            0 => area
                .draw(&PathElement::new(
                    [(x, y), (x + 28, y)],
                    PATH.stroke_width(2),
                ))
                .map_err(err)?,
            1 => {
                for dx in [0, 10, 20] {
                    area.draw(&PathElement::new(
                        [(x + dx, y), (x + dx + 6, y)],
                        START.stroke_width(1),
                    ))
                    .map_err(err)?;
                }
            }
            _ => area
                .draw(&Rectangle::new(
                    [(x, y - 6), (x + 28, y + 6)],
                    BAND.mix(0.25).filled(),
                ))
                .map_err(err)?,
        }
        area.draw(&Text::new(label, (x + 36, y - 7), text.clone()))
            .map_err(err)?;
        let (tw, _) = area.estimate_text_size(label, &text).map_err(err)?;
        x += 36 + tw as i32 + 28;
    }
    Ok(())
}

fn draw_series<DB: DrawingBackend>(
    s: &Series<'_>,
    area: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String> {
    let last = s.values.last().copied().unwrap_or(s.start);
    let n = s.values.len().max(1);
    let (lo, hi) = s.y_range();
    let mut chart = ChartBuilder::on(area)
        .caption(
            if s.c_end > 0.0 {
                format!(
                    "{}: {} -> {:.1}  (c_end {:.1})",
                    s.name, s.start, last, s.c_end
                )
            } else {
                // A parameter the engine no longer has: its c_end is unknown, no band.
                format!("{}: {} -> {:.1}", s.name, s.start, last)
            },
            (FONT, 16),
        )
        .margin(6)
        .x_label_area_size(30)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..n as f64, lo..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("iteration")
        .x_labels(5)
        .y_labels(5)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 12))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    // The final value ± c_end.
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(0.0, last - s.c_end), (n as f64, last + s.c_end)],
            BAND.mix(0.25).filled(),
        )))
        .map_err(err)?;
    chart
        .draw_series(DashedLineSeries::new(
            [(0.0, s.start), (n as f64, s.start)],
            6,
            4,
            START.stroke_width(1),
        ))
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new(
            s.values
                .iter()
                .enumerate()
                .map(|(i, &v)| ((i + 1) as f64, v)),
            PATH.stroke_width(1),
        ))
        .map_err(err)?;
    Ok(())
}

/// The loss curves of a network's training: training and validation loss per epoch.
pub fn write_loss_png(path: &Path, history: &[(usize, f64, f64)]) -> Result<(), String> {
    register_font()?;
    const W: u32 = 720;
    const H: u32 = 440;
    let values = history.iter().flat_map(|r| [r.1, r.2]);
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        let pad = (hi - lo) * 0.05;
        (lo - pad, hi + pad)
    } else if lo.is_finite() {
        (lo - 0.5, lo + 0.5)
    } else {
        (0.0, 1.0)
    };
    let first = history.first().map_or(0, |r| r.0) as f64;
    let last = history.last().map_or(1, |r| r.0) as f64;
    let last = if last > first { last } else { first + 1.0 };
    let mut rgb = vec![255u8; (W * H * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (W, H)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .caption("loss per epoch", (FONT, 18))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(first..last, lo..hi)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("epoch")
            .y_desc("loss")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.5}"))
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 13))
            .draw()
            .map_err(err)?;
        for (name, color, pick) in [
            ("training", PATH, 1usize),
            ("validation", VALIDATION, 2usize),
        ] {
            let point =
                move |r: &(usize, f64, f64)| (r.0 as f64, if pick == 1 { r.1 } else { r.2 });
            chart
                .draw_series(LineSeries::new(
                    history.iter().map(point),
                    color.stroke_width(2),
                ))
                .map_err(err)?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart
                .draw_series(
                    history
                        .iter()
                        .map(|r| Circle::new(point(r), 3, color.filled())),
                )
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FONT, 13))
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK.mix(0.3))
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    save_png(path, &rgb, W, H)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_size(path: &Path) -> (u32, u32) {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        (w, h)
    }

    /// Decodes a PNG and counts the pixels of `color` (within 40 per channel).
    fn pixels_near(path: &Path, color: RGBColor) -> usize {
        pixels_near_in_rows(path, color, 0..u32::MAX)
    }

    /// The same, counting only the pixel rows in `rows`.
    fn pixels_near_in_rows(path: &Path, color: RGBColor, rows: std::ops::Range<u32>) -> usize {
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let row_bytes = info.width as usize * 3;
        buf[..info.buffer_size()]
            .chunks(row_bytes)
            .enumerate()
            .filter(|(y, _)| rows.contains(&(*y as u32)))
            .flat_map(|(_, row)| row.chunks(3))
            .filter(|p| {
                (i32::from(p[0]) - i32::from(color.0)).abs() < 40
                    && (i32::from(p[1]) - i32::from(color.1)).abs() < 40
                    && (i32::from(p[2]) - i32::from(color.2)).abs() < 40
            })
            .count()
    }

    #[test]
    fn parameter_panels_have_the_right_size_and_draw_the_path() {
        let dir = crate::nnue_data::scratch_dir("plot");
        let values: Vec<f64> = (0..200).map(|i| 75.0 + f64::from(i) * 0.07).collect();
        let series: Vec<Series> = (0..4)
            .map(|_| Series {
                name: "RFP_MARGIN",
                min: 20.0,
                max: 200.0,
                start: 75.0,
                c_end: 4.0,
                values: &values,
            })
            .collect();
        let path = dir.join("p.png");
        write_png(&path, &series).unwrap();
        assert_eq!(png_size(&path), (3 * PANEL_W, LEGEND_H + 2 * PANEL_H));
        // The path is drawn (blue pixels), and so is text (dark pixels of the labels).
        assert!(pixels_near(&path, PATH) > 500);
        // The legend is drawn once, in the strip above the panels, not over any of them.
        let strip = 0..LEGEND_H;
        assert!(pixels_near_in_rows(&path, PATH, strip.clone()) >= 28);
        assert!(pixels_near_in_rows(&path, START, strip.clone()) >= 12);
        assert!(pixels_near_in_rows(&path, RGBColor(0, 0, 0), strip) > 100);
        assert!(pixels_near(&path, RGBColor(0, 0, 0)) > 500);
        // An empty run still draws its panels.
        let empty = [Series {
            name: "X",
            min: 0.0,
            max: 10.0,
            start: 5.0,
            c_end: 1.0,
            values: &[],
        }];
        write_png(&path, &empty).unwrap();
        assert_eq!(png_size(&path), (3 * PANEL_W, LEGEND_H + PANEL_H));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_y_axis_follows_the_path_not_the_parameter_range() {
        let values = [75.0, 80.0, 89.0];
        let s = Series {
            name: "LMR_BASE",
            min: 0.0,
            max: 300.0,
            start: 75.0,
            c_end: 3.0,
            values: &values,
        };
        let (lo, hi) = s.y_range();
        // 75 .. 92 (89 + c_end), padded by a tenth of 17.
        assert!(
            (lo - 73.3).abs() < 1e-9 && (hi - 93.7).abs() < 1e-9,
            "{lo} {hi}"
        );
    }

    #[test]
    fn loss_curves_are_drawn() {
        let dir = crate::nnue_data::scratch_dir("loss");
        let history: Vec<(usize, f64, f64)> = (1..=10)
            .map(|e| (e, 0.02 / e as f64, 0.021 / e as f64))
            .collect();
        let path = dir.join("loss.png");
        write_loss_png(&path, &history).unwrap();
        assert_eq!(png_size(&path), (720, 440));
        assert!(pixels_near(&path, VALIDATION) > 200);
        // One epoch only: still a plot.
        write_loss_png(&path, &history[..1]).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
