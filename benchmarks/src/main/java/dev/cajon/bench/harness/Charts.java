package dev.cajon.bench.harness;

import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Grouped bar charts as one PNG, one panel per pipeline depth (the -P 1 and -P 16 numbers differ
 * by an order of magnitude, so they do not share an axis). Rendered headless with XChart.
 */
final class Charts {

    /** One panel: categories along x, one series of bars per server. */
    record Panel(String title, String yAxis, List<String> categories,
            LinkedHashMap<String, List<Double>> series) {
    }

    /** Fixed colours so Cajon, Redis and Redis AOF look the same in every chart. */
    private static final Color[] COLOURS = {
        new Color(0xD9, 0x6C, 0x1E), new Color(0x3B, 0x6E, 0xA8), new Color(0x7F, 0x9F, 0xC8),
        new Color(0x6A, 0xA8, 0x4F), new Color(0x99, 0x99, 0x99)
    };

    private Charts() {
    }

    static void write(Path png, List<Panel> panels) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<CategoryChart> charts = new ArrayList<>();
        for (Panel p : panels) {
            CategoryChart c = new CategoryChartBuilder().width(640).height(420)
                    .title(p.title()).xAxisTitle("test").yAxisTitle(p.yAxis()).build();
            c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
            c.getStyler().setSeriesColors(COLOURS);
            c.getStyler().setYAxisMin(0.0);
            c.getStyler().setYAxisDecimalPattern("#,###");
            c.getStyler().setChartBackgroundColor(Color.WHITE);
            c.getStyler().setAvailableSpaceFill(0.8);
            c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
            for (Map.Entry<String, List<Double>> s : p.series().entrySet()) {
                List<Double> y = new ArrayList<>();
                for (Double v : s.getValue()) {
                    y.add(v == null || !Double.isFinite(v) ? 0.0 : v);
                }
                c.addSeries(s.getKey(), p.categories(), y);
            }
            charts.add(c);
        }
        Path parent = png.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        try (OutputStream out = Files.newOutputStream(png)) {
            BitmapEncoder.saveBitmap(charts, 1, charts.size(), out, BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
