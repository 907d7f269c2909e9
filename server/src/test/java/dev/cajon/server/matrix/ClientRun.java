package dev.cajon.server.matrix;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one client printed for one run of the scenario against one server. Every scenario, the
 * scripts' and {@link JavaScenario}, prints the same compact JSON lines:
 * <pre>
 * {"step":"ttl","ok":true,"observed":{...}}
 * {"step":"watch-conflict","ok":false,"error":"..."}
 * {"summary":{...}}
 * </pre>
 * or a single {@code {"missing":"why"}} (the client is not installed) or {@code
 * {"unsupported":"why"}} (it cannot speak the protocol asked for).
 */
record ClientRun(String server, List<Step> steps, String summary, String notRun, String output) {
    /** One step: its name, whether its expectations held, and what the client observed or why it failed. */
    record Step(String name, boolean ok, String observed, String error) {
        private static final Pattern LINE =
                Pattern.compile("^\\{\"step\":\"([^\"]+)\",\"ok\":(true|false),\"(observed|error)\":(.*)\\}$");

        static Step parse(String line) {
            Matcher m = LINE.matcher(line.strip());
            if (!m.matches()) {
                return null;
            }
            boolean ok = m.group(2).equals("true");
            boolean observed = m.group(3).equals("observed");
            return new Step(m.group(1), ok, observed ? m.group(4) : null, observed ? null : m.group(4));
        }
    }

    /** The error of every step after a failed connect (the same text in every scenario). */
    static final String NOT_CONNECTED = "not run: the client could not connect";

    private static final Pattern NOT_RUN = Pattern.compile("^\\{\"(missing|unsupported)\":\\s*(\".*\")\\}$");

    static ClientRun parse(String server, List<String> lines, String extraOutput) {
        List<Step> steps = new ArrayList<>();
        String summary = null;
        String notRun = null;
        for (String line : lines) {
            Step s = Step.parse(line);
            if (s != null) {
                steps.add(s);
            } else if (line.startsWith("{\"summary\":")) {
                summary = line;
            } else {
                Matcher m = NOT_RUN.matcher(line.strip());
                if (m.matches()) {
                    notRun = m.group(2).substring(1, m.group(2).length() - 1);
                }
            }
        }
        StringBuilder out = new StringBuilder(String.join("\n", lines));
        if (extraOutput != null && !extraOutput.isBlank()) {
            out.append("\n--- stderr ---\n").append(extraOutput.strip());
        }
        return new ClientRun(server, steps, summary, notRun, out.toString());
    }

    Map<String, Step> byName() {
        Map<String, Step> m = new LinkedHashMap<>();
        steps.forEach(s -> m.put(s.name(), s));
        return m;
    }

    /** Every step of the scenario ran and held, and the run ended with its summary. */
    boolean passed() {
        Map<String, Step> m = byName();
        return summary != null && JavaScenario.STEPS.stream().allMatch(n -> m.containsKey(n) && m.get(n).ok());
    }

    /** One line per step that did not pass: "step: why", for an assertion message. */
    String failures() {
        Map<String, Step> m = byName();
        StringBuilder b = new StringBuilder();
        for (String n : JavaScenario.STEPS) {
            Step s = m.get(n);
            if (s == null) {
                b.append("\n  ").append(n).append(": not reported");
            } else if (!s.ok() && !s.error().contains(NOT_CONNECTED)) {
                b.append("\n  ").append(n).append(": ").append(s.error());
            }
        }
        if (steps.stream().anyMatch(s -> !s.ok() && s.error().contains(NOT_CONNECTED))) {
            b.append("\n  (the other steps did not run: the client could not connect)");
        }
        if (summary == null) {
            b.append("\n  (no summary line: the client crashed or timed out)\n").append(output);
        }
        return b.toString();
    }
}
