/** An Observable Plot figure as a Preact component: rebuilt when its options or its container's width change. */
import * as Plot from "@observablehq/plot";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

/** Renders `Plot.plot(options)` as wide as its container; `label` names the figure for screen readers and tests. */
export function PlotFigure({ options, label }: { options: Plot.PlotOptions; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const node = ref.current;
    if (!node) return;
    setWidth(node.clientWidth);
    const observer = new ResizeObserver(() => setWidth(node.clientWidth));
    observer.observe(node);
    return () => observer.disconnect();
  }, []);
  useLayoutEffect(() => {
    const node = ref.current;
    if (!node || width === 0) return;
    const figure = Plot.plot({
      style: { fontSize: "12px", fontFamily: "inherit", background: "transparent" },
      ...options,
      width: Math.max(320, Math.floor(width)),
    });
    node.replaceChildren(figure);
    return () => figure.remove();
  }, [options, width]);
  return <div class="plot" role="img" aria-label={label} ref={ref} />;
}

export { Plot };
