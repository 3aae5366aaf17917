/** Tiny DOM helpers: the page is plain DOM, no framework. Text goes in as text, never as HTML. */
import { connectionText } from "./messages.js";

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

type Child = Node | string | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** Sets a status line's text and tone (`error` is announced as well as coloured). */
export function say(element: HTMLElement, text: string, tone: "info" | "ok" | "error" = "info") {
  element.textContent = text;
  element.dataset.tone = tone;
}

export function errorText(error: unknown): string {
  const connection = connectionText(error);
  if (connection) return connection;
  if (error && typeof error === "object" && "reason" in error && "message" in error) {
    const e = error as { status?: number; reason: string; message: string };
    return `${e.message} (${e.status ?? ""} ${e.reason})`.replace("( ", "(");
  }
  return error instanceof Error ? error.message : String(error);
}
