package search

import (
	"slices"
	"testing"
)

// everydayTools are tools a person asks for by what they want, in
// everyday words their descriptions do not use, beside tools that share
// some of those words and answer something else.
var everydayTools = append(slices.Clone(englishTools),
	Doc{ID: "invoice", Server: "books", Tool: "create_invoice", Description: "Create an invoice for a contact."},
	Doc{ID: "receivables", Server: "books", Tool: "list_aged_receivables", Description: "List aged receivables by contact: the amounts still outstanding."},
	Doc{ID: "balance", Server: "cloud", Tool: "balance_get", Description: "Get the balance and billing information of the account."},
	Doc{ID: "sizes", Server: "cloud", Tool: "size_list", Description: "List the available droplet sizes and their monthly price."},
	Doc{ID: "members", Server: "team", Tool: "get_member", Description: "Get a member of the organisation by user ID."},
	Doc{ID: "task", Server: "todo", Tool: "create_tasks", Description: "Create new tasks with a due date."},
	Doc{ID: "tasks", Server: "todo", Tool: "get_tasks", Description: "Get the tasks of a project."},
	Doc{ID: "completed", Server: "todo", Tool: "get_completed_tasks", Description: "Get completed tasks."},
	Doc{ID: "body", Server: "fitness", Tool: "get_body_measurements", Description: "List dated body measurements."},
	Doc{ID: "cloud", Server: "charts", Tool: "word_cloud", Description: "Word cloud chart: the size of a word shows its weight."},
	Doc{ID: "archive", Server: "meteo", Tool: "weather_archive", Description: "Historical weather data for a date range."},
	Doc{ID: "air", Server: "meteo", Tool: "air_quality", Description: "Air quality forecast: particulate matter, ozone, pollen and UV index."},
	Doc{ID: "days", Server: "time", Tool: "days_in_month", Description: "Number of days in a month."},
	Doc{ID: "search", Server: "web", Tool: "web_search", Description: "Search the web for pages about a topic."},
	Doc{ID: "lookup", Server: "papers", Tool: "lookup_citation", Description: "Look up a citation and show it."},
	Doc{ID: "scale", Server: "k8s", Tool: "kubectl_scale", Description: "Scale a Kubernetes deployment."},
	Doc{ID: "app", Server: "apps", Tool: "create_application", Description: "Creates a new Argo CD application in the given namespace."},
	Doc{ID: "estimate", Server: "devops", Tool: "list_estimated_efforts", Description: "List the estimated effort recorded on a work item."},
	Doc{ID: "workitem", Server: "devops", Tool: "update_work_item", Description: "Update the fields of a work item."},
	Doc{ID: "funds", Server: "stocks", Tool: "get_theme_list", Description: "List theme funds sorted by their return."},
	Doc{ID: "media", Server: "browser", Tool: "emulate_media", Description: "Emulate a media type or a colour scheme on the page."},
	Doc{ID: "meals", Server: "kitchen", Tool: "recommend_meals", Description: "Recommend a recipe for each meal of the week."},
	Doc{ID: "week", Server: "time", Tool: "get_week_year", Description: "The week of the year of a date."},
	Doc{ID: "available", Server: "domains", Tool: "check_domain_availability", Description: "Check the availability of a domain name."},
	Doc{ID: "claim", Server: "domains", Tool: "claim_free_domain", Description: "Claim a free domain that comes with a hosting plan."},
	Doc{ID: "write", Server: "fs", Tool: "write_file", Description: "Write content to a file."},
	Doc{ID: "ticker", Server: "exchange", Tool: "get_ticker", Description: "Get current ticker information for a trading pair."},
	Doc{ID: "cost", Server: "db", Tool: "get_cost", Description: "Get the cost of creating a new project."},
	Doc{ID: "flight", Server: "flights", Tool: "get_flight_status", Description: "Get the status of a flight: departure and arrival times."},
	Doc{ID: "merges", Server: "gitlab", Tool: "list_merge_requests", Description: "List the merge requests of a project."},
	Doc{ID: "buy_domain", Server: "hosting", Tool: "domains_purchaseNewDomain", Description: "Purchase and register a new domain name."},
	Doc{ID: "local", Server: "search", Tool: "local_search", Description: "Search for local businesses and places."},
	Doc{ID: "orientation", Server: "mobile", Tool: "set_orientation", Description: "Change the screen orientation of the device."},
	Doc{ID: "place", Server: "maps", Tool: "place_details", Description: "Get the details of a place."},
	Doc{ID: "hardware", Server: "models", Tool: "list_hardware", Description: "List the hardware available for running a model."},
	Doc{ID: "eval", Server: "ai", Tool: "model_eval_run", Description: "Run an evaluation of a model."},
	Doc{ID: "notification", Server: "board", Tool: "create_notification", Description: "Send a notification to a user."},
	Doc{ID: "monitor", Server: "crawl", Tool: "monitor_create", Description: "Create a monitor that re-crawls a page on a schedule."},
	Doc{ID: "relation", Server: "stories", Tool: "add_relation", Description: "Add a relation between two stories."},
	Doc{ID: "extlink", Server: "stories", Tool: "add_external_link", Description: "Add an external link to a story."},
	Doc{ID: "transcript", Server: "youtube", Tool: "get_transcript", Description: "Get the transcript of a YouTube video."},
	Doc{ID: "videos", Server: "search", Tool: "video_search", Description: "Search for videos."},
	Doc{ID: "latest", Server: "science", Tool: "fetch_latest", Description: "Fetch the latest papers of a category."},
	Doc{ID: "paper", Server: "science", Tool: "fetch_content", Description: "Fetch the content of a paper."},
	Doc{ID: "workout", Server: "fitness", Tool: "create_workout", Description: "Create a workout with its exercises and sets."},
	Doc{ID: "workouts", Server: "fitness", Tool: "get_workout", Description: "Get a workout with its exercises."},
	Doc{ID: "gitlog", Server: "git", Tool: "git_log", Description: "Show the commit logs."},
	Doc{ID: "subreddit", Server: "reddit", Tool: "browse_subreddit", Description: "Fetch posts from a subreddit sorted hot, new, top or rising."},
	Doc{ID: "current", Server: "weather", Tool: "get_current_conditions", Description: "The most recent weather observation for a location."},
	Doc{ID: "payroll", Server: "books", Tool: "list_payroll_employees", Description: "List all payroll employees."},
	Doc{ID: "leave", Server: "books", Tool: "list_employee_leave", Description: "List the leave records of an employee in the payroll."},
	Doc{ID: "attractions", Server: "travel", Tool: "search_attractions", Description: "Search for attractions and points of interest in a place."},
	Doc{ID: "setloc", Server: "mobile", Tool: "set_location", Description: "Override the GPS location reported by the device."},
	Doc{ID: "useragent", Server: "browser", Tool: "set_user_agent", Description: "Set the user agent string the browser sends."},
	Doc{ID: "docs", Server: "docs", Tool: "search_docs", Description: "Search the documentation of a library."},
)

// TestEverydayWordsReachWhatTheyMean: money billed, owed and spent; things
// to be reminded of and things done; weight, rain and pollen; the internet;
// more copies of a service; hours a task is expected to take; kinds of
// funds; meals; names still free; another language; coins; planes;
// buying from a host; which way a screen is turned; GPUs; notifying;
// blocking; word for word; the newest; logging what one did; trends;
// humidity; pay and time off; sightseeing; a faked location. Each request says what
// it wants in words its tool's description lacks, and finds that tool
// first. The last rows guard what the same words meant before, or (theme
// funds) that a word's other sense does not take over.
func TestEverydayWordsReachWhatTheyMean(t *testing.T) {
	t.Parallel()
	ix := New(everydayTools)
	tests := []struct{ query, want string }{
		{"bill a client for the consulting work", "invoice"},
		{"who still owes us money", "receivables"},
		{"unpaid bills", "receivables"},
		{"how much have I spent on the cloud this month", "balance"},
		{"remind me to renew my passport", "task"},
		{"what did I get done yesterday", "completed"},
		{"am I losing weight", "body"},
		{"do I need an umbrella tomorrow", "weather"},
		{"did it rain in London last March", "archive"},
		{"will my hay fever be bad today", "air"},
		{"what does the internet say about it", "search"},
		{"time estimate for a work item", "estimate"},
		{"best performing ETFs", "funds"},
		{"what should I cook this week", "meals"},
		{"ideas for dinner", "meals"},
		{"is this domain name still free", "available"},
		{"put this paragraph into French", "translate"},
		{"say it in Spanish", "translate"},
		{"when does my plane land", "flight"},
		{"buy a domain for my bakery", "buy_domain"},
		{"turn the phone sideways", "orientation"},
		{"what GPUs can I run models on", "hardware"},
		{"notify a teammate", "notification"},
		{"mark one story as blocking another", "relation"},
		{"what the video says, word for word", "transcript"},
		{"newest papers on LLMs", "latest"},
		{"log today's gym workout", "workout"},
		{"log my workout", "workout"},
		{"what's trending today", "subreddit"},
		{"is it humid right now", "current"},
		{"when do I get my salary", "payroll"},
		{"how much time off has Anna taken", "leave"},
		{"sightseeing in Kyoto", "attractions"},
		{"spoof where the phone is", "setloc"},

		{"dark theme for the page", "media"},
		{"how many days in February", "days"},
		{"claim a free domain", "claim"},
		{"theme funds ranked by return", "funds"},
	}
	for _, tt := range tests {
		if hits := ix.Search(tt.query, 3); len(hits) == 0 || everydayTools[hits[0].Doc].ID != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, ids(everydayTools, hits), tt.want)
		}
	}
	// More copies of a service is scaling it (first over a catalog where
	// creating things is common; here creating is rare, so only the term).
	checkTerms(t, ix, "add more pods to the web app", []string{"scale"}, nil)
	// A coin's price is its ticker, as bitcoin's is (a stock's price
	// tool, here the only other priced thing, may come first).
	checkTerms(t, ix, "dogecoin price right now", []string{"ticker"}, nil)
}

// TestEverydayWordsKeepDeveloperSenses: the everyday senses above are bound
// to the phrases that carry them, so that an ordinary developer request
// using one of their words (a control plane, a freezing app, docs in a
// language, logging an error, a free port) is not read as a flight, the
// weather, a translation, a record or a domain check. Each row names the
// tool that must stay first, or the words of the wrong sense that its
// analysis must lack.
func TestEverydayWordsKeepDeveloperSenses(t *testing.T) {
	t.Parallel()
	ix := New(everydayTools)
	tests := []struct {
		query string
		want  string   // the tool that must come first, if the small catalog has one
		not   []string // words of the wrong sense
	}{
		{"control plane logs", "", []string{"flight", "aircraft"}},
		{"the app is freezing", "", []string{"weather", "forecast", "temperature"}},
		{"freezing point", "", []string{"weather", "forecast", "temperature"}},
		{"docs in english", "docs", []string{"translate"}},
		{"log the error", "", []string{"record", "create", "add"}},
		{"things to do today", "", []string{"attraction", "itinerary"}},
		{"spoof the user agent", "useragent", []string{"location", "override"}},
		{"tether the device", "", []string{"crypto", "ticker"}},
		{"time spent in gc", "", []string{"effort", "timesheet"}},
		{"is the port still free", "", []string{"availability", "available"}},
		{"what does this package depend on", "", []string{"relation", "dependency"}},
		{"weigh the trade-offs", "", []string{"body", "measurement", "weight"}},
		{"gpu memory usage", "", []string{"hardware"}},
		{"trending repositories", "", []string{"hot", "rising"}},
		{"more instances of this error", "", []string{"replica"}},
		{"software bill of materials", "", []string{"invoice", "billing"}},
		{"internet connection down", "", []string{"web", "search"}},
	}
	for _, tt := range tests {
		checkTerms(t, ix, tt.query, nil, tt.not)
		if tt.want == "" {
			continue
		}
		if hits := ix.Search(tt.query, 3); len(hits) == 0 || everydayTools[hits[0].Doc].ID != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, ids(everydayTools, hits), tt.want)
		}
	}
}
