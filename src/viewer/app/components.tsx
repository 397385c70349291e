/** Small building blocks shared by the pages. */
import type { ComponentChildren } from "preact";
import type { Outcome } from "./model.ts";
import { type Route, routeHash } from "./route.ts";

/** A link to a page of the app. */
export function Link({
  to,
  children,
  class: className,
  title,
}: {
  to: Route;
  children: ComponentChildren;
  class?: string;
  title?: string;
}) {
  return (
    <a href={routeHash(to)} class={className} title={title}>
      {children}
    </a>
  );
}

/** A titled panel. */
export function Card({
  title,
  subtitle,
  children,
  wide,
  id,
}: {
  title?: string;
  subtitle?: ComponentChildren;
  children: ComponentChildren;
  wide?: boolean;
  id?: string;
}) {
  return (
    <section class={`card${wide ? " wide" : ""}`} id={id} data-section={id}>
      {title && (
        <header class="card-head">
          <h2>{title}</h2>
          {subtitle && <p class="muted">{subtitle}</p>}
        </header>
      )}
      {children}
    </section>
  );
}

/** One headline number. */
export function Kpi({
  label,
  value,
  detail,
  tone,
  name,
}: {
  label: string;
  value: string;
  detail?: ComponentChildren;
  tone?: "good" | "bad" | "warn";
  name: string;
}) {
  return (
    <div class={`kpi${tone ? ` ${tone}` : ""}`} data-kpi={name}>
      <div class="kpi-label">{label}</div>
      <div class="kpi-value">{value}</div>
      {detail && <div class="kpi-detail">{detail}</div>}
    </div>
  );
}

const OUTCOME_LABELS: Record<Outcome, string> = {
  success: "success",
  failure: "failure",
  infra: "infrastructure error",
};

/** A coloured outcome label. */
export function OutcomeBadge({ outcome }: { outcome: Outcome }) {
  return <span class={`badge ${outcome}`}>{OUTCOME_LABELS[outcome]}</span>;
}

/** A small neutral tag. */
export function Tag({
  children,
  tone,
  title,
}: {
  children: ComponentChildren;
  tone?: string;
  title?: string;
}) {
  return (
    <span class={`tag${tone ? ` ${tone}` : ""}`} title={title}>
      {children}
    </span>
  );
}

/** The ✓ / ✗ of a check. */
export function Mark({ ok }: { ok: boolean }) {
  return <span class={`mark ${ok ? "ok" : "no"}`}>{ok ? "✓" : "✗"}</span>;
}

/** Shown while a page loads. */
export function Loading({ what }: { what: string }) {
  return <div class="loading">Loading {what}…</div>;
}

/** Shown when a page could not load. */
export function Problem({ message }: { message: string }) {
  return (
    <div class="problem" role="alert">
      {message}
    </div>
  );
}

/** JSON as indented text. */
export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** Tool-call arguments inline: `name(a=1, b="x")`. */
export function callText(name: string, args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return `${name}(${parts.join(", ")})`;
}
