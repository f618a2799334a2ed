//! A small bar chart drawn into an RGB buffer and encoded as PNG: no fonts, no system
//! libraries, the same bytes on every machine.

/// The chart's height in pixels.
pub const HEIGHT: u32 = 160;
/// Blank space around the plot, in pixels.
pub const MARGIN: u32 = 16;
/// One bar's width in pixels.
pub const BAR_WIDTH: u32 = 32;
/// The space between two bars, in pixels.
pub const GAP: u32 = 16;

const BACKGROUND: [u8; 3] = [255, 255, 255];
const AXIS: [u8; 3] = [64, 64, 64];
const GRID: [u8; 3] = [225, 225, 225];
/// Bar colours, used in turn (a colour-blind-safe palette).
pub const PALETTE: [[u8; 3]; 6] = [
    [0, 114, 178],
    [230, 159, 0],
    [0, 158, 115],
    [204, 121, 167],
    [86, 180, 233],
    [213, 94, 0],
];
/// Above this many units, the chart has no grid line per unit.
const MAX_GRID_LINES: usize = 20;

/// The chart's width in pixels for `bars` bars (room for one when there are none).
///
/// ```
/// use toolsmith_examples::chart::{width, MARGIN, BAR_WIDTH, GAP};
/// assert_eq!(width(0), width(1));
/// assert_eq!(width(3), 2 * MARGIN + 3 * BAR_WIDTH + 2 * GAP);
/// ```
pub fn width(bars: usize) -> u32 {
    let bars = bars.max(1) as u32;
    2 * MARGIN + bars * BAR_WIDTH + (bars - 1) * GAP
}

/// The height in pixels of a bar for `count` when the tallest counts `max`: proportional,
/// and at least one pixel for any count above zero.
fn bar_height(count: usize, max: usize) -> u32 {
    let plot = u64::from(HEIGHT - 2 * MARGIN);
    if count == 0 || max == 0 {
        return 0;
    }
    let scaled = (count as u64 * plot).div_ceil(max as u64);
    scaled.clamp(1, plot) as u32
}

/// A PNG (8-bit RGB) of one bar per count, left to right, on a white ground with a base
/// line and, for small counts, a faint line per unit, so that bars can be counted without
/// text.
///
/// ```
/// let png = toolsmith_examples::chart::bar_chart(&[2, 1]);
/// assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
/// ```
pub fn bar_chart(counts: &[usize]) -> Vec<u8> {
    let (w, h) = (width(counts.len()), HEIGHT);
    let mut pixels = vec![0u8; w as usize * h as usize * 3];
    for px in pixels.chunks_exact_mut(3) {
        px.copy_from_slice(&BACKGROUND);
    }
    let mut fill = |x0: u32, y0: u32, x1: u32, y1: u32, colour: [u8; 3]| {
        for y in y0..y1.min(h) {
            for x in x0..x1.min(w) {
                let at = (y as usize * w as usize + x as usize) * 3;
                pixels[at..at + 3].copy_from_slice(&colour);
            }
        }
    };

    let base = HEIGHT - MARGIN; // the row just below the plot
    let max = counts.iter().copied().max().unwrap_or(0);
    if (1..=MAX_GRID_LINES).contains(&max) {
        for unit in 1..=max {
            let y = base - bar_height(unit, max);
            fill(MARGIN, y, w - MARGIN, y + 1, GRID);
        }
    }
    for (i, &count) in counts.iter().enumerate() {
        let x = MARGIN + i as u32 * (BAR_WIDTH + GAP);
        let colour = PALETTE[i % PALETTE.len()];
        fill(
            x,
            base - bar_height(count, max),
            x + BAR_WIDTH,
            base,
            colour,
        );
    }
    fill(MARGIN / 2, base, w - MARGIN / 2, base + 1, AXIS);

    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .expect("writing to a Vec cannot fail");
    writer
        .write_image_data(&pixels)
        .expect("the buffer holds exactly w * h RGB pixels");
    writer.finish().expect("writing to a Vec cannot fail");
    png
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes a PNG: its width, height and RGB pixels.
    fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    fn pixel(pixels: &[u8], w: u32, x: u32, y: u32) -> [u8; 3] {
        let at = ((y * w + x) * 3) as usize;
        pixels[at..at + 3].try_into().unwrap()
    }

    #[test]
    fn header_has_the_signature_and_size() {
        let png = bar_chart(&[1, 2, 3]);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert_eq!((w, h), (width(3), HEIGHT));
        assert_eq!(w, 2 * MARGIN + 3 * BAR_WIDTH + 2 * GAP);
    }

    #[test]
    fn bars_are_as_tall_as_their_counts() {
        let png = bar_chart(&[1, 2]);
        let (w, h, pixels) = decode(&png);
        assert_eq!((w, h), (width(2), HEIGHT));
        let plot = HEIGHT - 2 * MARGIN;
        let base = HEIGHT - MARGIN;
        // Measure each bar up its middle column.
        let tall = |i: u32| {
            let x = MARGIN + i * (BAR_WIDTH + GAP) + BAR_WIDTH / 2;
            (0..base)
                .rev()
                .take_while(|&y| pixel(&pixels, w, x, y) == PALETTE[i as usize])
                .count() as u32
        };
        assert_eq!(tall(0), plot / 2);
        assert_eq!(tall(1), plot);
        // The gap between the bars is background (or a grid line), never a bar colour.
        let gap_x = MARGIN + BAR_WIDTH + GAP / 2;
        assert_eq!(pixel(&pixels, w, gap_x, base - 1), BACKGROUND);
        assert_eq!(pixel(&pixels, w, gap_x, base - plot / 2), GRID);
        assert_eq!(pixel(&pixels, w, gap_x, base), AXIS);
        assert_eq!(pixel(&pixels, w, 0, 0), BACKGROUND);
    }

    #[test]
    fn no_bars_is_an_empty_chart_and_zero_is_no_bar() {
        let (w, h, pixels) = decode(&bar_chart(&[]));
        assert_eq!((w, h), (width(0), HEIGHT));
        assert!(pixels.chunks_exact(3).all(|p| p == BACKGROUND || p == AXIS));

        let (w, _, pixels) = decode(&bar_chart(&[0, 3]));
        let x = MARGIN + BAR_WIDTH / 2;
        assert_eq!(pixel(&pixels, w, x, HEIGHT - MARGIN - 1), BACKGROUND);
    }

    #[test]
    fn a_small_count_under_a_large_one_still_shows() {
        let (w, _, pixels) = decode(&bar_chart(&[1, 10_000]));
        let x = MARGIN + BAR_WIDTH / 2;
        assert_eq!(pixel(&pixels, w, x, HEIGHT - MARGIN - 1), PALETTE[0]);
        assert_eq!(pixel(&pixels, w, x, HEIGHT - MARGIN - 2), BACKGROUND);
    }
}
