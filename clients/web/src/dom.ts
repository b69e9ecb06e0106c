// Tiny DOM helpers: elements are built, never parsed from strings, so names from the server stay text.

const SVG_NS = "http://www.w3.org/2000/svg";

export type Child = Node | string | number | null | undefined | false | readonly Child[];
export type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

function apply(element: Element, attrs: Attrs, children: readonly Child[]): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") {
      element.addEventListener(name.replace(/^on/, ""), value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
}

function append(parent: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.append(child);
    else parent.append(String(child));
  }
}

/** An HTML element. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  apply(element, attrs, children);
  return element;
}

/** An SVG element. */
export function s(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS(SVG_NS, tag) as SVGElement;
  apply(element, attrs, children);
  return element;
}

/** A standalone inline <svg> of the given size around some SVG content centred on (0, 0). */
export function icon(size: number, ...children: Child[]): SVGElement {
  const half = size / 2;
  return s(
    "svg",
    { width: size, height: size, viewBox: `${-half} ${-half} ${size} ${size}`, class: "icon", "aria-hidden": "true" },
    ...children,
  );
}
