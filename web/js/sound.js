// The table's sounds, made on the spot with WebAudio (no sound file): a move, a capture, a
// check, the start and the end of a game, the low-time warning, an offer made to the receiver
// and the opponent leaving. A mute setting kept in
// localStorage silences them. Nothing plays before the page has had a click or a key (the
// browsers' rule); the sounds asked for are still counted for the tests (`expose('sounds')`).

import { expose } from './testing.js';

/** @typedef {'move' | 'capture' | 'check' | 'start' | 'end' | 'lowtime' | 'offer' | 'gone'} SoundName */

const STORAGE_KEY = 'chuhe.muted';
/** @type {AudioContext | null} */
let audio = null;
let muted = false;
try {
  muted = globalThis.localStorage?.getItem(STORAGE_KEY) === '1';
} catch {
  muted = false;
}
/** @type {SoundName[]} every sound asked for, in order (the tests read it) */
const played = [];

/** Whether the sounds are off. */
export function isMuted() {
  return muted;
}

/**
 * Turns the sounds off or on, and keeps the choice.
 * @param {boolean} off
 */
export function setMuted(off) {
  muted = off;
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, off ? '1' : '0');
  } catch {
    // storage disabled: the choice lasts for the page only
  }
}

/**
 * One tone: `freq` Hz for `ms` milliseconds from `at` seconds, a quick attack and a decay.
 * @param {AudioContext} ctx
 * @param {number} at
 * @param {number} freq
 * @param {number} ms
 * @param {OscillatorType} type
 * @param {number} gain
 */
function tone(ctx, at, freq, ms, type, gain) {
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  amp.gain.setValueAtTime(0.0001, at);
  amp.gain.exponentialRampToValueAtTime(gain, at + 0.005);
  amp.gain.exponentialRampToValueAtTime(0.0001, at + ms / 1000);
  osc.connect(amp).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + ms / 1000 + 0.02);
}

/**
 * A short knock of filtered noise, like a piece set on wood.
 * @param {AudioContext} ctx
 * @param {number} at
 * @param {number} freq the band's centre, Hz (lower: heavier)
 * @param {number} gain
 */
function knock(ctx, at, freq, gain) {
  const length = Math.floor(ctx.sampleRate * 0.06);
  const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length) ** 3;
  const src = ctx.createBufferSource();
  src.buffer = buffer;
  const band = ctx.createBiquadFilter();
  band.type = 'bandpass';
  band.frequency.value = freq;
  band.Q.value = 1.2;
  const amp = ctx.createGain();
  amp.gain.value = gain;
  src.connect(band).connect(amp).connect(ctx.destination);
  src.start(at);
}

/**
 * Plays sound `name` (unless muted or the page has not been used yet).
 * @param {SoundName} name
 */
export function play(name) {
  played.push(name);
  expose('sounds', played);
  if (muted || typeof AudioContext === 'undefined') return;
  // browsers allow sound only after the page has been used
  if (!audio && !navigator.userActivation?.hasBeenActive) return;
  try {
    audio ??= new AudioContext();
    const ctx = audio;
    if (ctx.state === 'suspended') ctx.resume();
    const t = ctx.currentTime + 0.01;
    if (name === 'move') knock(ctx, t, 1800, 1.6);
    else if (name === 'capture') {
      knock(ctx, t, 900, 2.2);
      knock(ctx, t + 0.07, 1500, 1.4);
    } else if (name === 'check') {
      tone(ctx, t, 880, 120, 'triangle', 0.25);
      tone(ctx, t + 0.13, 1175, 160, 'triangle', 0.25);
    } else if (name === 'start') {
      [523, 659, 784].forEach((f, i) => tone(ctx, t + i * 0.09, f, 160, 'sine', 0.2));
    } else if (name === 'end') {
      [784, 659, 523, 392].forEach((f, i) => tone(ctx, t + i * 0.11, f, 200, 'sine', 0.2));
    } else if (name === 'offer') {
      // a question: two rising soft tones (a draw, takeback or rematch offered to the receiver)
      tone(ctx, t, 660, 110, 'sine', 0.18);
      tone(ctx, t + 0.12, 990, 150, 'sine', 0.18);
    } else if (name === 'gone') {
      // the opponent's connection dropped: one low falling pair
      tone(ctx, t, 440, 140, 'triangle', 0.2);
      tone(ctx, t + 0.15, 330, 200, 'triangle', 0.2);
    } else if (name === 'lowtime') {
      tone(ctx, t, 1320, 70, 'square', 0.08);
      tone(ctx, t + 0.15, 1320, 70, 'square', 0.08);
    }
  } catch {
    // no audio device: the game goes on in silence
  }
}
