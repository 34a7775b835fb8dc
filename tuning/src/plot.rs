//! PNG plot of each parameter's path during a tuning run: one panel per parameter, its value
//! over the iterations scaled to its [min, max] range, the start value dashed, name and final
//! value written with an embedded 8x8 font (no system fonts needed).

use std::path::Path;

use font8x8::UnicodeFonts;

const PANEL_W: usize = 320;
const PANEL_H: usize = 140;
const COLUMNS: usize = 3;
const MARGIN: usize = 12;

struct Canvas {
    w: usize,
    h: usize,
    rgb: Vec<u8>,
}

impl Canvas {
    fn new(w: usize, h: usize) -> Canvas {
        Canvas {
            w,
            h,
            rgb: vec![255; w * h * 3],
        }
    }

    fn set(&mut self, x: i64, y: i64, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as usize) < self.w && (y as usize) < self.h {
            let i = (y as usize * self.w + x as usize) * 3;
            self.rgb[i..i + 3].copy_from_slice(&c);
        }
    }

    fn line(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3], dashed: bool) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        let mut step = 0;
        loop {
            if !dashed || (step / 4) % 2 == 0 {
                self.set(x, y, c);
            }
            step += 1;
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    fn save(&self, path: &Path) -> Result<(), String> {
        let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut enc =
            png::Encoder::new(std::io::BufWriter::new(file), self.w as u32, self.h as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer
            .write_image_data(&self.rgb)
            .map_err(|e| e.to_string())
    }

    fn rect(&mut self, x: i64, y: i64, w: i64, h: i64, c: [u8; 3]) {
        self.line(x, y, x + w, y, c, false);
        self.line(x, y + h, x + w, y + h, c, false);
        self.line(x, y, x, y + h, c, false);
        self.line(x + w, y, x + w, y + h, c, false);
    }

    fn text(&mut self, x: i64, y: i64, s: &str, c: [u8; 3]) {
        for (i, ch) in s.chars().enumerate() {
            let Some(glyph) = font8x8::BASIC_FONTS.get(ch) else {
                continue;
            };
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits & (1 << col) != 0 {
                        self.set(x + (i * 8 + col) as i64, y + row as i64, c);
                    }
                }
            }
        }
    }
}

/// One parameter's path.
pub struct Series<'a> {
    pub name: &'a str,
    pub min: f64,
    pub max: f64,
    pub start: f64,
    pub values: &'a [f64],
}

/// Renders the paths and writes them as a PNG.
pub fn write_png(path: &Path, series: &[Series<'_>]) -> Result<(), String> {
    let rows = series.len().div_ceil(COLUMNS).max(1);
    let mut cv = Canvas::new(COLUMNS * PANEL_W, rows * PANEL_H);
    for (i, s) in series.iter().enumerate() {
        let ox = ((i % COLUMNS) * PANEL_W + MARGIN) as i64;
        let oy = ((i / COLUMNS) * PANEL_H + MARGIN + 12) as i64;
        let (w, h) = (
            (PANEL_W - 2 * MARGIN) as i64,
            (PANEL_H - 2 * MARGIN - 14) as i64,
        );
        cv.rect(ox, oy, w, h, [160, 160, 160]);
        let last = s.values.last().copied().unwrap_or(s.start);
        cv.text(
            ox,
            oy - 11,
            &format!("{} {:.0}->{:.1}", s.name, s.start, last),
            [0, 0, 0],
        );
        cv.text(ox + 2, oy + 2, &format!("{}", s.max), [120, 120, 120]);
        cv.text(ox + 2, oy + h - 9, &format!("{}", s.min), [120, 120, 120]);
        let span = (s.max - s.min).max(1e-9);
        let y_of = |v: f64| oy + h - (((v - s.min) / span).clamp(0.0, 1.0) * h as f64) as i64;
        let ys = y_of(s.start);
        cv.line(ox, ys, ox + w, ys, [200, 80, 80], true);
        let n = s.values.len();
        if n >= 2 {
            let x_of = |k: usize| ox + (k as f64 / (n - 1) as f64 * w as f64) as i64;
            for k in 1..n {
                cv.line(
                    x_of(k - 1),
                    y_of(s.values[k - 1]),
                    x_of(k),
                    y_of(s.values[k]),
                    [30, 70, 200],
                    false,
                );
            }
        }
    }
    cv.save(path)
}

/// The loss curves of a network's training: training (blue) and validation (red) loss per
/// epoch, on axes scaled to the values, with the scale written at the corners.
pub fn write_loss_png(path: &Path, history: &[(usize, f64, f64)]) -> Result<(), String> {
    const W: usize = 640;
    const H: usize = 400;
    const LEFT: i64 = 80;
    const TOP: i64 = 30;
    let (pw, ph) = (W as i64 - LEFT - 20, H as i64 - TOP - 50);
    let mut cv = Canvas::new(W, H);
    let values = history.iter().flat_map(|r| [r.1, r.2]);
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (lo.min(0.0), lo.max(0.0) + 1.0)
    };
    let last_epoch = history.last().map_or(1, |r| r.0).max(1);
    let first_epoch = history.first().map_or(1, |r| r.0);
    let span = (last_epoch - first_epoch).max(1) as f64;
    let x = |e: usize| LEFT + ((e - first_epoch) as f64 / span * pw as f64) as i64;
    let y = |v: f64| TOP + ph - ((v - lo) / (hi - lo) * ph as f64) as i64;
    cv.rect(LEFT, TOP, pw, ph, [160, 160, 160]);
    cv.text(
        LEFT,
        8,
        "loss per epoch: training (blue), validation (red)",
        [0, 0, 0],
    );
    cv.text(4, TOP, &format!("{hi:.5}"), [0, 0, 0]);
    cv.text(4, TOP + ph - 8, &format!("{lo:.5}"), [0, 0, 0]);
    cv.text(
        LEFT,
        TOP + ph + 8,
        &format!("epoch {first_epoch}"),
        [0, 0, 0],
    );
    let end = format!("epoch {last_epoch}");
    cv.text(
        LEFT + pw - 8 * end.len() as i64,
        TOP + ph + 8,
        &end,
        [0, 0, 0],
    );
    for (k, color) in [(1usize, [40, 90, 200]), (2, [200, 50, 40])] {
        let value = |r: &(usize, f64, f64)| if k == 1 { r.1 } else { r.2 };
        for pair in history.windows(2) {
            cv.line(
                x(pair[0].0),
                y(value(&pair[0])),
                x(pair[1].0),
                y(value(&pair[1])),
                color,
                false,
            );
        }
        for r in history {
            for d in -2..=2 {
                cv.set(x(r.0) + d, y(value(r)), color);
                cv.set(x(r.0), y(value(r)) + d, color);
            }
        }
    }
    cv.save(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_png_with_the_right_size() {
        let dir = std::env::temp_dir().join(format!("shears-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.png");
        let values = [10.0, 12.0, 11.0, 15.0];
        let series: Vec<Series> = (0..4)
            .map(|_| Series {
                name: "RFP_MUL",
                min: 0.0,
                max: 20.0,
                start: 10.0,
                values: &values,
            })
            .collect();
        write_png(&path, &series).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // Width and height in the IHDR chunk: 3 columns, 2 rows.
        let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((w as usize, h as usize), (3 * PANEL_W, 2 * PANEL_H));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
