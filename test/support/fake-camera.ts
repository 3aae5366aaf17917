/**
 * A video for Chromium's fake camera (`--use-file-for-fake-video-capture`), made from a still photo
 * of a person: the photo is stretched sideways and back, over and over, so that the person's wrists
 * and ankles move apart and together (a star jump seen from the front, without the jump). The
 * pose model in the page sees a body whose keypoints really move; nothing is drawn by hand.
 *
 * Written as YUV4MPEG2 (`.y4m`), the uncompressed format the fake device plays at the frame rate
 * in its header and loops.
 */
import { readFileSync, writeFileSync } from "node:fs";
import jpeg from "jpeg-js";

export interface StretchVideo {
  /** Frames per stretch-and-back cycle. */
  readonly framesPerCycle: number;
  readonly framesPerSecond: number;
  /** Width at the widest, as a multiple of the photo's (1 = no movement). */
  readonly maxStretch: number;
}

export function writeStretchVideo(photoPath: string, outPath: string, video: StretchVideo): void {
  const photo = jpeg.decode(readFileSync(photoPath), { useTArray: true });
  const height = photo.height & ~1;
  const width = Math.ceil((photo.width * video.maxStretch) / 2) * 2;
  const header = `YUV4MPEG2 W${width} H${height} F${video.framesPerSecond}:1 Ip A1:1 C420jpeg\n`;
  const frames: Buffer[] = [Buffer.from(header)];
  for (let k = 0; k < video.framesPerCycle; k++) {
    const stretch =
      1 + ((video.maxStretch - 1) * (1 - Math.cos((2 * Math.PI * k) / video.framesPerCycle))) / 2;
    frames.push(Buffer.from("FRAME\n"), i420(stretchedPhoto(photo, width, stretch), width, height));
  }
  writeFileSync(outPath, Buffer.concat(frames));
}

interface Rgba {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** RGB of output pixel (x, y): the photo stretched by `stretch` about the frame's centre (edges repeat). */
function stretchedPhoto(photo: Rgba, width: number, stretch: number) {
  return (x: number, y: number): [number, number, number] => {
    const source = Math.round((x - width / 2) / stretch + photo.width / 2);
    const column = Math.min(photo.width - 1, Math.max(0, source));
    const at = (y * photo.width + column) * 4;
    return [photo.data[at], photo.data[at + 1], photo.data[at + 2]];
  };
}

/** Planar YUV 4:2:0 with full-range BT.601 coefficients (what `C420jpeg` means). */
function i420(
  pixel: (x: number, y: number) => [number, number, number],
  width: number,
  height: number,
): Buffer {
  const luma = Buffer.alloc(width * height);
  const u = Buffer.alloc((width / 2) * (height / 2));
  const v = Buffer.alloc((width / 2) * (height / 2));
  for (let y = 0; y < height; y += 2) {
    for (let x = 0; x < width; x += 2) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of [
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ]) {
        const [pr, pg, pb] = pixel(x + dx, y + dy);
        luma[(y + dy) * width + x + dx] = clamp(0.299 * pr + 0.587 * pg + 0.114 * pb);
        r += pr / 4;
        g += pg / 4;
        b += pb / 4;
      }
      const at = (y / 2) * (width / 2) + x / 2;
      u[at] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b);
      v[at] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b);
    }
  }
  return Buffer.concat([luma, u, v]);
}

function clamp(value: number): number {
  return Math.min(255, Math.max(0, Math.round(value)));
}
