package customer

// RouteAccess is one route of the dashboard and what it asks of its
// visitor, for the route × role test.
type RouteAccess struct{ Pattern, Access string }

// Routes lists every route the dashboard serves with its access.
func Routes() []RouteAccess {
	var out []RouteAccess
	for _, rt := range (&Handler{}).routeTable() {
		out = append(out, RouteAccess{rt.pattern, rt.access.String()})
	}
	return out
}

// APIRoutes lists every route of the JSON API with its access.
func APIRoutes() []RouteAccess {
	var out []RouteAccess
	for _, rt := range (&Handler{}).apiTable() {
		out = append(out, RouteAccess{rt.pattern, rt.access.String()})
	}
	return out
}
