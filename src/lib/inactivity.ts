/**
 * Inactivity rules (docs/behaviour.md, "Sessions and signing out") as plain timers: a warning after 25 minutes without
 * activity, a logout after 30, and a heartbeat to the server at most once a minute while the user is active, so the
 * server's idle clock follows real use. Uses setTimeout and Date.now only, so fake clocks can drive it.
 */

export interface InactivityOptions {
  warningMs: number;
  logoutMs: number;
  heartbeatMs: number;
  onWarning: () => void;
  onLogout: () => void;
  onHeartbeat: () => void;
  now?: () => number;
}

export interface InactivityMonitor {
  /** Call on every mouse press or move, key press, scroll, touch start or click. */
  activity: () => void;
  stop: () => void;
}

/** The DOM events that count as activity (docs/behaviour.md, "Sessions and signing out"). */
export const ACTIVITY_EVENTS = ['mousedown', 'mousemove', 'keydown', 'keypress', 'scroll', 'touchstart', 'click'];

/** Starts the timers as if the user had just been active. */
export function startInactivityMonitor(options: InactivityOptions): InactivityMonitor {
  const now = options.now ?? (() => Date.now());
  let lastActivity = now();
  // The first activity after start reports at once: the page may have been reloaded long after the last report.
  let lastHeartbeat = Number.NEGATIVE_INFINITY;
  let warned = false;
  let stopped = false;
  let warningTimer: ReturnType<typeof setTimeout> | undefined;
  let logoutTimer: ReturnType<typeof setTimeout> | undefined;
  let heartbeatTimer: ReturnType<typeof setTimeout> | undefined;

  function stop(): void {
    stopped = true;
    clearTimeout(warningTimer);
    clearTimeout(logoutTimer);
    clearTimeout(heartbeatTimer);
    heartbeatTimer = undefined;
  }

  function logout(): void {
    if (stopped) return;
    stop();
    options.onLogout();
  }

  function schedule(): void {
    clearTimeout(warningTimer);
    clearTimeout(logoutTimer);
    warningTimer = setTimeout(() => {
      if (stopped || warned) return;
      warned = true;
      options.onWarning();
    }, options.warningMs);
    logoutTimer = setTimeout(logout, options.logoutMs);
  }

  function sendHeartbeat(): void {
    heartbeatTimer = undefined;
    if (stopped) return;
    lastHeartbeat = now();
    options.onHeartbeat();
  }

  function activity(): void {
    if (stopped) return;
    const at = now();
    // A sleeping device freezes timers: activity after the limit still means the session ran out.
    if (at - lastActivity >= options.logoutMs) {
      logout();
      return;
    }
    lastActivity = at;
    warned = false;
    schedule();
    if (at - lastHeartbeat >= options.heartbeatMs) {
      clearTimeout(heartbeatTimer);
      sendHeartbeat();
    } else if (heartbeatTimer === undefined) {
      // Report this activity too, once the minute since the last report is over.
      heartbeatTimer = setTimeout(sendHeartbeat, lastHeartbeat + options.heartbeatMs - at);
    }
  }

  schedule();
  return { activity, stop };
}
