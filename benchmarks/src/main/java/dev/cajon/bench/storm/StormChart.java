package dev.cajon.bench.storm;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The storm chart, two panels over the same time axis (seconds since the deadline window opened,
 * so the servers line up even though their loads took different times):
 * <ol>
 *   <li>TTL keys DBSIZE still counts (DBSIZE minus the keys without TTL), per server, with the
 *       ideal curve of a server that drops every key at its deadline;</li>
 *   <li>GET/SET throughput per 100 ms as a share of that server's quiet baseline, with the 90 %
 *       target.</li>
 * </ol>
 * Vertical lines mark the first deadline, the last deadline and the last deadline + 500 ms.
 */
final class StormChart {

    /** The colours of the side-by-side charts: Cajon, Redis, Redis AOF. */
    private static final Color[] COLOURS = {
        new Color(0xD9, 0x6C, 0x1E), new Color(0x3B, 0x6E, 0xA8), new Color(0x7F, 0x9F, 0xC8),
        new Color(0x6A, 0xA8, 0x4F)
    };
    private static final Color IDEAL = new Color(0x55, 0x55, 0x55);

    private StormChart() {
    }

    static void write(Path png, List<ServerRun> all, ExpiryStorm o) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<ServerRun> runs = all.stream().filter(r -> r.samples != null && r.deadlines != null).toList();
        if (runs.isEmpty()) {
            throw new IOException("no server has samples to chart");
        }
        double width = runs.get(0).windowWidth / 1000;
        double xMin = -1.0;
        double xMax = width + 1.5;
        for (ServerRun r : runs) {
            // up to 1.5 s after the later of "empty" and "+500 ms", or the end of the samples
            double end = (r.samples.sent()[r.samples.count() - 1] - r.windowStart) / 1000;
            double over = Double.isNaN(r.emptyAfterLast) ? end
                    : (r.lastDeadline + Math.max(500, r.emptyAfterLast) - r.windowStart) / 1000 + 1.5;
            xMax = Math.max(xMax, Math.min(Math.min(end, over), width + o.maxDrain.toSeconds()));
            xMin = Math.max(-3.0, Math.min(xMin, (r.loadEnd - r.windowStart) / 1000 - 0.3));
        }

        XYChart keys = base("Expiry storm: TTL keys still counted by DBSIZE", "TTL keys (DBSIZE - keys without TTL)",
                xMin, xMax);
        keys.getStyler().setYAxisMax(o.keys * 1.08);
        keys.getStyler().setYAxisDecimalPattern("#,###");
        ServerRun ref = runs.get(0);
        List<Double> ix = new ArrayList<>();
        List<Double> iy = new ArrayList<>();
        for (double t = Math.max(xMin, (ref.loadEnd - ref.windowStart) / 1000); t <= xMax; t += 0.01) {
            ix.add(t);
            iy.add((double) (StormAnalysis.ideal(ref.deadlines, 0, ref.windowStart + t * 1000)));
        }
        // first, so that the servers' lines are drawn over it
        line(keys, "ideal (every key gone at its deadline)", ix, iy, IDEAL, true);
        int c = 0;
        for (ServerRun r : runs) {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (int i = 0; i < r.samples.count(); i++) {
                double t = (r.samples.mid(i) - r.windowStart) / 1000;
                if (t >= xMin && t <= xMax) {
                    x.add(t);
                    y.add((double) Math.max(0, r.samples.dbsize()[i] - r.base));
                }
            }
            line(keys, r.target.name(), x, y, COLOURS[c++ % COLOURS.length], false);
        }
        markWindow(keys, ref, o.keys * 1.04);

        XYChart tput = base("GET/SET throughput per 100 ms during the storm", "% of the quiet baseline",
                xMin, xMax);
        tput.getStyler().setYAxisMin(0.0);
        double yMax = 120;
        c = 0;
        for (ServerRun r : runs) {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            if (r.stormOps != null && r.quietRate > 0) {
                double from = Math.max(r.stormLoadFrom + 100, r.windowStart + xMin * 1000);
                // windows aligned on the window's opening, as in the table
                double first = r.windowStart - 100 * Math.floor((r.windowStart - from) / 100);
                for (double w = first; w + 100 <= r.stormLoadTo && (w - r.windowStart) / 1000 <= xMax; w += 100) {
                    double v = StormAnalysis.throughput(r.stormOps, w, w + 100);
                    if (!Double.isNaN(v)) {
                        x.add((w + 50 - r.windowStart) / 1000);
                        y.add(100 * v / r.quietRate);
                        yMax = Math.max(yMax, 100 * v / r.quietRate + 10);
                    }
                }
            }
            if (!x.isEmpty()) {
                line(tput, r.target.name(), x, y, COLOURS[c % COLOURS.length], false);
            }
            c++;
        }
        tput.getStyler().setYAxisMax(yMax);
        tput.addAnnotation(new AnnotationLine(StormReport.TARGET_RATIO * 100, false, false));
        tput.addAnnotation(new AnnotationText("90 % target", xMin + 0.35, StormReport.TARGET_RATIO * 100 - 6, false));
        markWindow(tput, ref, yMax * 0.96);

        Path parent = png.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        try (OutputStream out = Files.newOutputStream(png)) {
            BitmapEncoder.saveBitmap(List.of(keys, tput), 2, 1, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static XYChart base(String title, String yAxis, double xMin, double xMax) {
        XYChart c = new XYChartBuilder().width(900).height(400).title(title)
                .xAxisTitle("seconds since the deadline window opened").yAxisTitle(yAxis).build();
        Styler s = c.getStyler();
        s.setLegendPosition(Styler.LegendPosition.InsideNE);
        s.setChartBackgroundColor(Color.WHITE);
        s.setAnnotationLineColor(new Color(0x88, 0x88, 0x88));
        s.setAnnotationLineStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                new float[] {4f, 4f}, 0f));
        s.setAnnotationTextFontColor(new Color(0x44, 0x44, 0x44));
        c.getStyler().setXAxisMin(xMin);
        c.getStyler().setXAxisMax(xMax);
        c.getStyler().setXAxisDecimalPattern("0.0");
        return c;
    }

    private static void line(XYChart chart, String name, List<Double> x, List<Double> y, Color colour, boolean dashed) {
        if (x.isEmpty()) {
            x = List.of(0.0);
            y = List.of(0.0);
        }
        XYSeries s = chart.addSeries(name, x, y);
        s.setMarker(SeriesMarkers.NONE);
        s.setLineColor(colour);
        s.setLineWidth(dashed ? 1.5f : 2f);
        if (dashed) {
            s.setLineStyle(SeriesLines.DASH_DASH);
        }
    }

    private static void markWindow(XYChart chart, ServerRun ref, double textY) {
        double first = (ref.firstDeadline - ref.windowStart) / 1000;
        double last = (ref.lastDeadline - ref.windowStart) / 1000;
        chart.addAnnotation(new AnnotationLine(first, true, false));
        chart.addAnnotation(new AnnotationLine(last, true, false));
        chart.addAnnotation(new AnnotationLine(last + 0.5, true, false));
        chart.addAnnotation(new AnnotationText("deadline window", (first + last) / 2, textY, false));
        chart.addAnnotation(new AnnotationText("+500 ms", last + 0.5, textY, false));
    }
}
