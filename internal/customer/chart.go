package customer

import (
	"strconv"
	"strings"

	"github.com/nodegate/nodegate/internal/accounts"
)

// chart is a bar chart drawn as SVG in the page (no script): one bar per
// day, its height scaled to the period's largest value.
type chart struct {
	Title         string
	Width, Height float64
	Bars          []bar
	Max           string
	First, Last   string
}

// bar is one day's bar; Title is its tooltip (SVG <title>).
type bar struct {
	X, Y, W, H float64
	Title      string
}

// Chart geometry: the plot's size inside the SVG and its top margin.
const (
	chartW   = 600
	chartH   = 160
	chartTop = 10
)

// dayChart draws days by value (requests or credits).
func dayChart(title, unit string, days []accounts.DayUsage, value func(accounts.DayUsage) int64) chart {
	c := chart{Title: title, Width: chartW, Height: chartH + chartTop + 20}
	var top int64
	for _, d := range days {
		top = max(top, value(d))
	}
	c.Max = formatInt(top)
	if len(days) == 0 {
		return c
	}
	c.First, c.Last = days[0].Day, days[len(days)-1].Day
	step := float64(chartW) / float64(len(days))
	for i, d := range days {
		v := value(d)
		h := 0.0
		if top > 0 {
			h = float64(v) / float64(top) * chartH
		}
		if v > 0 && h < 1 {
			h = 1 // a day with use shows
		}
		c.Bars = append(c.Bars, bar{X: float64(i)*step + 1, Y: chartTop + chartH - h, W: step - 2, H: h,
			Title: d.Day + ": " + formatInt(v) + " " + unit})
	}
	return c
}

// gauge is today's credits against the daily budget.
type gauge struct {
	Used, Budget string
	// Fill is the used share of the bar's 400 units; Unlimited when the
	// plan has no daily budget.
	Fill      float64
	Percent   string
	Unlimited bool
}

func budgetGauge(used, budget int64) gauge {
	g := gauge{Used: formatInt(used), Budget: formatInt(budget), Unlimited: budget <= 0}
	if budget > 0 {
		share := min(float64(used)/float64(budget), 1)
		g.Fill = share * 400
		g.Percent = strconv.FormatFloat(float64(used)*100/float64(budget), 'f', 1, 64) + "%"
	}
	return g
}

// formatInt writes n with thousands separators (1,234,567).
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// formatRate writes a credit rate ("unlimited" for 0).
func formatRate(r float64) string {
	if r <= 0 {
		return "unlimited"
	}
	if r == float64(int64(r)) {
		return formatInt(int64(r)) + " credits/s"
	}
	return strconv.FormatFloat(r, 'f', -1, 64) + " credits/s"
}
